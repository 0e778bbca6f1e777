//! Each routing answer takes its path: RATE_LIMIT and MAX_RETRANSMIT resend with new ids,
//! DUTY_CYCLE pauses all sending, the fatal reasons give up at once, an implicit ACK is only
//! `Relayed`, silence runs into the ACK timeout, and a full TX queue is waited out.

use std::collections::HashSet;
use std::time::Duration;

use meshai::radio::{FailReason, NakReason, PartOutcome};

use super::{ALICE, BOB, Rig, WAIT, reply, report, sim_config};
use crate::support::sim_node::{AckPlan, SentText};

use PartOutcome::{Delivered, Failed, Relayed};

const EARLIER: PartOutcome = Failed(FailReason::EarlierPartFailed);

/// Each accepted text's id is fresh: the firmware drops a packet whose id it saw.
fn assert_fresh_ids(texts: &[SentText]) {
    let ids: HashSet<u32> = texts.iter().map(|t| t.id).collect();
    assert_eq!(ids.len(), texts.len(), "ids reused: {texts:#?}");
    assert!(!ids.contains(&0));
}

fn apart(texts: &[SentText], a: usize, b: usize) -> Duration {
    texts[b].at.duration_since(texts[a].at)
}

#[tokio::test(start_paused = true)]
async fn rate_limit_exceeded_is_resent_with_a_new_id_and_delivered() {
    let rig = Rig::start(sim_config()).await;
    rig.sim.push_ack_plan(AckPlan::Nak(38));
    let r = report(rig.send(reply(ALICE, &["again please"])).await).await;
    assert_eq!(r.parts, [Delivered]);

    let texts = rig.sim.texts();
    assert_eq!(texts.len(), 2);
    assert_fresh_ids(&texts);
    assert!(texts.iter().all(|t| t.text == "again please"));
    assert!(apart(&texts, 0, 1) >= Duration::from_secs(2));
}

#[tokio::test(start_paused = true)]
async fn max_retransmit_is_retried_and_given_up_after_three_naks() {
    let rig = Rig::start(sim_config()).await;
    rig.sim.push_ack_plan(AckPlan::Nak(5));
    let r = report(rig.send(reply(ALICE, &["second time lucky"])).await).await;
    assert_eq!(r.parts, [Delivered]);
    assert_eq!(rig.sim.texts().len(), 2);

    rig.sim.push_ack_plans([AckPlan::Nak(5); 3]);
    let r = report(rig.send(reply(BOB, &["never", "sent", "at all"])).await).await;
    assert_eq!(
        r.parts,
        [
            Failed(FailReason::Nak(NakReason::MaxRetransmit)),
            EARLIER,
            EARLIER
        ]
    );
    let texts = rig.sim.texts();
    let to_bob: Vec<SentText> = texts.into_iter().filter(|t| t.to == BOB).collect();
    assert_eq!(to_bob.len(), 3, "three tries of the first part only");
    assert!(to_bob.iter().all(|t| t.text == "never"));
    assert_fresh_ids(&to_bob);
    // Retries back off: 5 s, then 15 s after the NAK.
    assert!(apart(&to_bob, 0, 1) >= Duration::from_secs(5));
    assert!(apart(&to_bob, 1, 2) >= Duration::from_secs(15));
}

#[tokio::test(start_paused = true)]
async fn duty_cycle_limit_pauses_all_sending_then_resends() {
    let rig = Rig::start(sim_config()).await;
    rig.sim.push_ack_plan(AckPlan::Nak(9));
    let first = rig.send(reply(ALICE, &["over budget"])).await;
    let second = rig.send(reply(BOB, &["waits its turn"])).await;
    assert_eq!(report(first).await.parts, [Delivered]);
    assert_eq!(report(second).await.parts, [Delivered]);

    let texts = rig.sim.texts();
    let to: Vec<u32> = texts.iter().map(|t| t.to).collect();
    assert_eq!(
        to,
        [ALICE, ALICE, BOB],
        "nothing else went out during the pause"
    );
    assert_fresh_ids(&texts);
    let pause = apart(&texts, 0, 1);
    assert!(
        pause >= Duration::from_secs(300) && pause < Duration::from_secs(310),
        "resent after {pause:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn too_large_no_channel_and_pki_naks_give_up_at_once() {
    let rig = Rig::start(sim_config()).await;
    let cases = [
        (7, NakReason::TooLarge),
        (6, NakReason::NoChannel),
        (34, NakReason::PkiFailed),
        (35, NakReason::PkiUnknownPubkey),
        (39, NakReason::PkiSendFailPublicKey),
    ];
    for (code, reason) in cases {
        let before = rig.sim.texts().len();
        rig.sim.push_ack_plan(AckPlan::Nak(code));
        let r = report(rig.send(reply(ALICE, &["doomed", "unsent"])).await).await;
        assert_eq!(
            r.parts,
            [Failed(FailReason::Nak(reason)), EARLIER],
            "{code}"
        );
        assert_eq!(
            rig.sim.texts().len(),
            before + 1,
            "one send only for {code}"
        );
    }
    // The outbox carries on with the next reply.
    let r = report(rig.send(reply(BOB, &["fine"])).await).await;
    assert_eq!(r.parts, [Delivered]);
}

#[tokio::test(start_paused = true)]
async fn an_implicit_ack_is_reported_as_relayed() {
    let rig = Rig::start(sim_config()).await;
    rig.sim.push_ack_plan(AckPlan::ImplicitAck);
    let r = report(
        rig.send(reply(ALICE, &["heard a relay", "then acked"]))
            .await,
    )
    .await;
    assert_eq!(r.parts, [Relayed, Delivered]);
    assert_eq!(rig.sim.texts().len(), 2, "a relayed part is not resent");
}

#[tokio::test(start_paused = true)]
async fn silence_runs_into_the_ack_timeout_and_fails_after_three_tries() {
    let rig = Rig::start(sim_config()).await;
    rig.sim.push_ack_plans([AckPlan::Silent; 3]);
    let r = report(rig.send(reply(ALICE, &["into the void", "unsent"])).await).await;
    assert_eq!(r.parts, [Failed(FailReason::AckTimeout), EARLIER]);

    let texts = rig.sim.texts();
    assert_eq!(texts.len(), 3);
    assert_fresh_ids(&texts);
    assert!(apart(&texts, 0, 1) >= Duration::from_secs(45 + 5));
    assert!(apart(&texts, 1, 2) >= Duration::from_secs(45 + 15));
    // One silent try then an ACK: delivered on the second send.
    rig.sim.push_ack_plan(AckPlan::Silent);
    let r = report(rig.send(reply(BOB, &["late"])).await).await;
    assert_eq!(r.parts, [Delivered]);
    assert_eq!(rig.sim.texts().len(), 5);
}

#[tokio::test(start_paused = true)]
async fn a_full_tx_queue_is_probed_until_it_frees() {
    let rig = Rig::start(sim_config()).await;
    rig.sim.set_queue_free(0);
    let first = rig.send(reply(ALICE, &["fills the queue"])).await;
    let second = rig.send(reply(BOB, &["waits for room"])).await;
    assert_eq!(report(first).await.parts, [Delivered]);

    // Probes (heartbeats) go out while the queue stays full, and no text does.
    rig.sim.wait_heartbeats(2, WAIT).await;
    assert_eq!(rig.sim.texts().len(), 1);
    rig.sim.set_queue_free(16);
    assert_eq!(report(second).await.parts, [Delivered]);

    let texts = rig.sim.texts();
    let waited = apart(&texts, 0, 1);
    assert!(
        waited >= Duration::from_secs(10) && waited < Duration::from_secs(60),
        "sent {waited:?} later: after the probe that saw room, before the 60 s fallback"
    );
    assert!(rig.sim.heartbeats() >= 3, "the probe that saw room");
}

#[tokio::test(start_paused = true)]
async fn a_queue_that_never_reports_room_is_given_up_on_after_a_minute() {
    // Older firmware does not answer the probe at all.
    let rig = Rig::start(sim_config()).await;
    rig.sim.set_queue_free(0);
    rig.sim.set_answer_heartbeats(false);
    let first = rig.send(reply(ALICE, &["fills the queue"])).await;
    let second = rig.send(reply(BOB, &["sent anyway"])).await;
    assert_eq!(report(first).await.parts, [Delivered]);
    assert_eq!(report(second).await.parts, [Delivered]);
    let waited = apart(&rig.sim.texts(), 0, 1);
    assert!(
        waited >= Duration::from_secs(60) && waited < Duration::from_secs(61),
        "sent {waited:?} later"
    );
}
