#!/usr/bin/env bash
# The models a Pi can run, measured here: for each model scripts/local-llm.sh can serve from
# PyPI (SmolLM2-135M, Qwen2.5-Coder-0.5B) and each thread count (1 and 2: a Pi 4 and a Pi 5
# are both slower than one core of this VM, see docs/raspberry-pi.md), it starts llama.cpp's
# server on 127.0.0.1, asks eight everyday questions that have one right answer (what a
# newcomer tried: "What is 17 times 23?", "How do I say thank you in Spanish?"), and prints how
# many answers hold it, the prompt and writing rates the server reports (`timings`), and the
# time to the first 150-character packet of a typical meshai prompt (its first reply reads
# about 220 prompt tokens, then writes ~40 tokens for the packet). Numbers go to stdout;
# docs/raspberry-pi.md ("Choosing a model") has the last run's.
#
# Usage: scripts/model-bench.sh [THREADS...]   (default: 1 2)
set -euo pipefail
cd "$(dirname "$0")/.."

threads=("$@")
[[ ${#threads[@]} -gt 0 ]] || threads=(1 2)

# The questions and what a right answer holds (a Python regular expression, any case).
readonly QUESTIONS='[
  ["What is 17 times 23?", "\\b391\\b"],
  ["How do I say thank you in Spanish?", "gracias"],
  ["What is the capital of Australia?", "canberra"],
  ["How many minutes are in three hours?", "\\b180\\b"],
  ["What does SNR stand for?", "signal.to.noise"],
  ["At what temperature in Celsius does water boil at sea level?", "\\b100\\b"],
  ["What is the chemical symbol for gold?", "\\bau\\b"],
  ["How many days are in a leap year?", "\\b366\\b"]
]'
# What meshai's English system prompt asks of every answer, in short.
readonly SYSTEM="You are a helpful assistant reached over a LoRa mesh radio. Answer in one or two short sentences."

ask_all() {
    python3 - "$1" "$2" "$QUESTIONS" "$SYSTEM" <<'EOF'
import json, re, sys, time, urllib.request
url, model, questions, system = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]

def chat(messages, max_tokens):
    body = json.dumps({"model": model, "messages": messages, "max_tokens": max_tokens,
                       "temperature": 0, "cache_prompt": False}).encode()
    req = urllib.request.Request(url + "/chat/completions", body,
                                 {"Content-Type": "application/json"})
    started = time.monotonic()
    with urllib.request.urlopen(req, timeout=300) as r:
        answer = json.load(r)
    return answer, time.monotonic() - started

right, prompt_rates, write_rates, wrong = 0, [], [], []
chat([{"role": "user", "content": "ping"}], 1)  # loads the model
for question, key in questions:
    answer, _ = chat([{"role": "system", "content": system},
                      {"role": "user", "content": question}], 64)
    text = answer["choices"][0]["message"]["content"]
    t = answer.get("timings", {})
    if t.get("prompt_per_second"):
        prompt_rates.append(t["prompt_per_second"])
    if t.get("predicted_per_second"):
        write_rates.append(t["predicted_per_second"])
    if re.search(key, text, re.IGNORECASE):
        right += 1
    else:
        wrong.append(f"{question} -> {text.strip()[:90]!r}")
# A first reply's prompt: the system prompt and a memory block of about 220 tokens in all.
filler = " ".join(["The mesh has a relay on the hill and a node in the valley."] * 14)
_, took = chat([{"role": "system", "content": system + " " + filler},
                {"role": "user", "content": "Give me a tip for a node on a roof."}], 40)
median = lambda xs: sorted(xs)[len(xs) // 2] if xs else 0.0
print(f"| {right}/{len(questions)} | {median(prompt_rates):.0f} | {median(write_rates):.1f} | {took:.1f} s |")
for w in wrong:
    print(f"    wrong: {w}")
EOF
}

echo "| model | threads | everyday answers right | prompt tokens/s | written tokens/s | 220-token prompt + one packet |"
echo "|---|---|---|---|---|---|"
for qwen in 0 1; do
    for t in "${threads[@]}"; do
        scripts/local-llm.sh stop >/dev/null 2>&1 || true
        out=$(MESHAI_REAL_LLM_QWEN=$qwen MESHAI_REAL_LLM_THREADS=$t MESHAI_REAL_LLM_PARALLEL=1 \
            scripts/local-llm.sh start) || {
            printf '%s\n' "$out"
            exit 1
        }
        url=$(printf '%s\n' "$out" | sed -n 's/^MESHAI_REAL_LLM_URL=//p')
        model=$(printf '%s\n' "$out" | sed -n 's/^MESHAI_REAL_LLM_MODEL=//p')
        printf '| %s | %s ' "$model" "$t"
        ask_all "$url" "$model"
        scripts/local-llm.sh stop >/dev/null
    done
done
