#!/usr/bin/env bash
# Compares the decode rate of two Ollama servers serving the same model, by
# each server's own counters (eval_count / eval_duration of POST
# /api/generate), in rounds that alternate between them (old then new, new
# then old, ...), so that a machine shared with other work slows both
# alike. At each concurrency it unloads the model on both (with FRESH=1),
# sends one warm-up round to each, then ROUNDS rounds to each; a round is
# CONC requests at once, each with a prompt of its own and N tokens, and its
# rate is the mean of their decode rates. It prints, per concurrency, each
# server's median rate and the median and range of the per-round ratio
# new/old, and the ratios themselves. A tool for checking an Ollama upgrade
# by hand (docs/e2e.md), not part of the suite or of CI:
#
#   FRESH=1 bash scripts/ollama-alternate.sh
#
# Settings (environment): OLD_URL (default http://127.0.0.1:11434),
# NEW_URL (http://127.0.0.1:11435), MODEL (inferencebench-e2e), CONC
# (1,4), ROUNDS (10), N (64), FRESH (0), TAG (a word in every prompt, to
# keep them unique across runs; default the time).
set -euo pipefail

OLD_URL=${OLD_URL:-http://127.0.0.1:11434}
NEW_URL=${NEW_URL:-http://127.0.0.1:11435}
MODEL=${MODEL:-inferencebench-e2e}
CONC=${CONC:-1,4}
ROUNDS=${ROUNDS:-10}
N=${N:-64}
FRESH=${FRESH:-0}
TAG=${TAG:-$(date +%s)}
TEXT='Explain in a few sentences why the sky is blue, and what changes at sunset.'

die() {
  printf 'ollama-alternate: %s\n' "$*" >&2
  exit 1
}
for v in ROUNDS N; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v=${!v}: want a whole number of 1 or more"
done
[[ $CONC =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "CONC=$CONC: want concurrencies of 1 or more, comma-separated"
[ "$OLD_URL" != "$NEW_URL" ] || die "OLD_URL and NEW_URL are the same: $OLD_URL"
command -v curl >/dev/null || die "curl is not on PATH"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ollama-alternate.XXXXXX")
trap 'jobs -pr | xargs -r kill 2>/dev/null || true; rm -rf "$tmp"' EXIT

# generate URL PROMPT OUT: one request of N tokens; its reply in OUT.
generate() {
  curl -sS -m 120 -o "$3" -w '%{http_code}' "$1/api/generate" -H 'Content-Type: application/json' \
    -d "{\"model\":\"$MODEL\",\"prompt\":\"$2\",\"stream\":false,\"keep_alive\":\"30m\",\"options\":{\"num_predict\":$N,\"temperature\":0,\"seed\":1}}" >"$3.status" 2>&1 || true
}

# round URL CONC NAME: CONC requests at once; prints the mean of the
# server's decode rates, or fails unless each reply is 200 with N tokens.
round() {
  local url=$1 conc=$2 name=$3 i count dur rates=
  rm -f "$tmp"/reply*
  for ((i = 0; i < conc; i++)); do
    generate "$url" "[$name req $i] $TEXT" "$tmp/reply$i" &
  done
  wait
  for ((i = 0; i < conc; i++)); do
    [ "$(cat "$tmp/reply$i.status")" = 200 ] ||
      die "POST $url/api/generate: $(cat "$tmp/reply$i.status") $(head -c 300 "$tmp/reply$i" 2>/dev/null)"
    count=$(sed -n -E 's/.*"eval_count":([0-9]+).*/\1/p' "$tmp/reply$i")
    dur=$(sed -n -E 's/.*"eval_duration":([0-9]+).*/\1/p' "$tmp/reply$i")
    if [ "$count" != "$N" ] || [ "${dur:-0}" -le 0 ]; then
      die "POST $url/api/generate: eval_count ${count:-none} in ${dur:-no} ns, want $N tokens: $(head -c 300 "$tmp/reply$i")"
    fi
    rates+="$count $dur"$'\n'
  done
  printf '%s' "$rates" | awk '{ s += $1 / ($2 / 1e9); n++ } END { printf "%.3f\n", s / n }'
}

# unload URL: keep_alive 0, then until GET /api/ps lists no model (10 s).
unload() {
  local i
  curl -sS -m 30 -o /dev/null "$1/api/generate" -d "{\"model\":\"$MODEL\",\"keep_alive\":0}" ||
    die "POST $1/api/generate with keep_alive 0 failed"
  for ((i = 0; i < 100; i++)); do
    curl -sS -m 5 "$1/api/ps" | grep -q '"models":\[\]' && return 0
    sleep 0.1
  done
  die "$1/api/ps still lists a loaded model 10 s after keep_alive 0"
}

# spread: the minimum, median and maximum of the numbers on stdin.
spread() {
  sort -g | awk '{ x[NR] = $1 } END { m = NR % 2 ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2; printf "%.3f %.3f %.3f\n", x[1], m, x[NR] }'
}

IFS=, read -ra concs <<<"$CONC"
for conc in "${concs[@]}"; do
  if [ "$FRESH" = 1 ]; then unload "$OLD_URL" && unload "$NEW_URL"; fi
  round "$OLD_URL" "$conc" "$TAG warm-up c$conc old" >/dev/null
  round "$NEW_URL" "$conc" "$TAG warm-up c$conc new" >/dev/null
  olds=() news=() ratios=()
  for ((r = 0; r < ROUNDS; r++)); do
    if ((r % 2 == 0)); then
      old=$(round "$OLD_URL" "$conc" "$TAG c$conc r$r")
      new=$(round "$NEW_URL" "$conc" "$TAG c$conc r$r")
    else
      new=$(round "$NEW_URL" "$conc" "$TAG c$conc r$r")
      old=$(round "$OLD_URL" "$conc" "$TAG c$conc r$r")
    fi
    printf 'conc %d round %d: old %s new %s tok/s\n' "$conc" "$r" "$old" "$new" >&2
    olds+=("$old") news+=("$new") ratios+=("$(awk -v a="$new" -v b="$old" 'BEGIN { printf "%.3f", a / b }')")
  done
  read -r olo omed ohi < <(printf '%s\n' "${olds[@]}" | spread)
  read -r nlo nmed nhi < <(printf '%s\n' "${news[@]}" | spread)
  read -r rlo rmed rhi < <(printf '%s\n' "${ratios[@]}" | spread)
  printf 'conc %d, %d rounds: old median %.1f tok/s (%.1f..%.1f); new median %.1f (%.1f..%.1f); new/old median %s (%s..%s)\n' \
    "$conc" "$ROUNDS" "$omed" "$olo" "$ohi" "$nmed" "$nlo" "$nhi" "$rmed" "$rlo" "$rhi"
  printf 'ratios conc %d: [%s]\n' "$conc" "${ratios[*]}"
done
