//! Mail left with `!tell`: quotas checked with the insert, cancelled only by its sender,
//! attempts counted, and moved with a renumbered node.

use super::{A, B, open_temp};
use crate::node::{NodeId, PublicKey};
use crate::store::mail::{MailQuota, NewMail, Posted};

const C: NodeId = NodeId(0x0000_0c0c);
const QUOTA: MailQuota = MailQuota {
    per_sender: 2,
    per_recipient: 3,
};

fn mail(sender: NodeId, recipient: NodeId, text: &str) -> NewMail {
    NewMail {
        sender,
        sender_name: format!("{sender}"),
        recipient,
        recipient_name: "Carol".into(),
        recipient_key: Some(PublicKey([7; 32])),
        text: text.into(),
        sender_lang: crate::lang::Lang::De,
        at: 100,
        expires_at: 100 + 7 * 86_400,
    }
}

#[tokio::test]
async fn quotas_hold_per_sender_and_per_recipient() {
    let (_dir, store) = open_temp();
    let post = |s, r, t: &str| store.post_mail(mail(s, r, t), QUOTA);
    assert!(matches!(post(A, C, "one").await.unwrap(), Posted::Kept(_)));
    assert!(matches!(post(A, C, "two").await.unwrap(), Posted::Kept(_)));
    assert_eq!(post(A, C, "three").await.unwrap(), Posted::SenderFull(2));
    assert!(matches!(post(B, C, "four").await.unwrap(), Posted::Kept(_)));
    // C has three waiting: a fourth sender is refused for C, not for another recipient.
    let d = NodeId(0xd);
    assert_eq!(post(d, C, "five").await.unwrap(), Posted::RecipientFull(3));
    assert!(matches!(post(d, B, "six").await.unwrap(), Posted::Kept(_)));
    let waiting = store.waiting_mail().await.unwrap();
    let texts: Vec<&str> = waiting.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["one", "two", "four", "six"]);
    assert_eq!(waiting[0].recipient_key, Some(PublicKey([7; 32])));
    assert_eq!(waiting[0].sender_lang, crate::lang::Lang::De);
    assert_eq!(store.mail_from(A).await.unwrap().len(), 2);
}

#[tokio::test]
async fn only_its_sender_cancels_a_message_and_attempts_are_counted() {
    let (_dir, store) = open_temp();
    let Posted::Kept(id) = store.post_mail(mail(A, C, "hi"), QUOTA).await.unwrap() else {
        panic!("kept")
    };
    assert_eq!(store.cancel_mail(B, id).await.unwrap(), None);
    assert_eq!(store.mail_tried(id, 200).await.unwrap(), 1);
    assert_eq!(store.mail_tried(id, 300).await.unwrap(), 2);
    let m = &store.mail_from(A).await.unwrap()[0];
    assert_eq!((m.tried_at, m.attempts), (Some(300), 2));
    assert_eq!(
        store.cancel_mail(A, id).await.unwrap().map(|m| m.id),
        Some(id)
    );
    assert!(store.waiting_mail().await.unwrap().is_empty());
    assert!(!store.drop_mail(id).await.unwrap());
    assert_eq!(store.mail_tried(id, 400).await.unwrap(), 0, "gone");
}

#[tokio::test]
async fn a_renumbered_node_keeps_the_mail_it_left_and_is_owed() {
    let (_dir, store) = open_temp();
    let key = PublicKey([9; 32]);
    let new = key.node();
    store.pin_key(A, key, 10).await.unwrap();
    store.post_mail(mail(A, C, "from A"), QUOTA).await.unwrap();
    store.post_mail(mail(C, A, "for A"), QUOTA).await.unwrap();
    assert_eq!(
        store.renumber(A, new, key, 20).await.unwrap(),
        crate::store::renumber::Moved::All
    );
    assert_eq!(store.mail_from(new).await.unwrap()[0].text, "from A");
    assert!(store.mail_from(A).await.unwrap().is_empty());
    let owed = store.waiting_mail().await.unwrap();
    assert!(owed.iter().any(|m| m.recipient == new && m.text == "for A"));
    assert!(owed.iter().all(|m| m.recipient != A && m.sender != A));
}

#[tokio::test]
async fn a_reset_deletes_what_the_node_left_for_others_not_what_it_is_owed() {
    let (_dir, store) = open_temp();
    store.post_mail(mail(A, C, "from A"), QUOTA).await.unwrap();
    store.post_mail(mail(C, A, "for A"), QUOTA).await.unwrap();
    store.reset(A).await.unwrap();
    let texts: Vec<String> = store
        .waiting_mail()
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.text)
        .collect();
    assert_eq!(texts, ["for A"]);
}
