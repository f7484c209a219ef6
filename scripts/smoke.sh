#!/usr/bin/env bash
# Smoke test of a running service, deployed or local: the README's walk-through as a check.
#
#   scripts/smoke.sh BASE_URL API_KEY [FILE]      (make smoke API_URL=... API_KEY=... [SMOKE_FILE=...])
#
# BASE_URL is the stack's ApiUrl output (or http://127.0.0.1:8080 for make run), API_KEY one key
# of ApiKeysSecretArn's secret (the part before the first ":"), FILE a PDF, PNG or JPEG
# (default testdata/synth/sheet-00005.pdf, a generated A3 floor plan). Steps: create a job, PUT
# the file to the signed upload URL, start it, poll until it ends, read page 0's detections and
# the take-off CSV. Each step checks its HTTP status and answer; the first that fails ends the
# script with a non-zero status, naming the step, the status and the body. It creates one job
# (kept for the stack's Retention, like any other) and changes nothing else.
#
# SMOKE_TIMEOUT (seconds, default 900: the processing function's own limit) bounds the wait for
# the job; SMOKE_MIN_DETECTIONS (default 1) is the fewest detections the job must find.
# Needs bash, curl and jq.
set -euo pipefail

usage() { echo "usage: $0 BASE_URL API_KEY [FILE]" >&2; exit 2; }
[ $# -ge 2 ] && [ $# -le 3 ] || usage
base=${1%/}
key=$2
file=${3:-$(dirname "$0")/../testdata/synth/sheet-00005.pdf}
timeout=${SMOKE_TIMEOUT:-900}
min_detections=${SMOKE_MIN_DETECTIONS:-1}
[ -n "$key" ] || usage
for tool in curl jq; do
	command -v $tool >/dev/null || { echo "smoke: needs $tool" >&2; exit 2; }
done
[ -f "$file" ] || { echo "smoke: no file $file" >&2; exit 2; }
case "$(echo "$file" | tr 'A-Z' 'a-z')" in
*.pdf) mime=application/pdf ;;
*.png) mime=image/png ;;
*.jpg | *.jpeg) mime=image/jpeg ;;
*) echo "smoke: $file is not a .pdf, .png or .jpg" >&2; exit 2 ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
step=""
t0=$(date +%s)
fail() {
	echo "smoke: FAILED at $step: $*" >&2
	if [ -s "$tmp/body" ]; then echo "smoke: the answer was: $(head -c 2000 "$tmp/body")" >&2; fi
	exit 1
}
ok() { echo "smoke: ok   $step ($(($(date +%s) - t0)) s) $*"; }
# call WANT METHOD URL [curl args...]: the answer's body lands in $tmp/body; its status must be WANT.
call() {
	local want=$1 method=$2 url=$3 code
	shift 3
	: > "$tmp/body"
	code=$(curl -sS --max-time 60 -o "$tmp/body" -w '%{http_code}' -X "$method" "$url" "$@") ||
		fail "curl $method $url could not complete (curl exit status $?)"
	[ "$code" = "$want" ] || fail "$method $url answered HTTP $code, want $want"
}
json() { jq -er "$1" "$tmp/body" 2>/dev/null || fail "the answer has no $1"; }

echo "smoke: $base with $(basename "$file") ($mime, $(wc -c < "$file") bytes)"

step="1 init"
idem=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
size=$(wc -c < "$file" | tr -d ' ')
call 201 POST "$base/v1/jobs/init" -H "X-API-Key: $key" -H "Idempotency-Key: $idem" \
	-H 'Content-Type: application/json' \
	-d "{\"file_name\":\"$(basename "$file")\",\"mime_type\":\"$mime\",\"size\":$size,\"external_ref\":\"smoke-test\"}"
id=$(json .job_id)
upload=$(json .upload.url)
[ "$(json .upload.method)" = PUT ] || fail "the upload method is not PUT"
[ "$(json .status)" = awaiting_upload ] || fail "the new job is not awaiting_upload"
ok "job $id"

step="2 upload"
# Locally the service answers the PUT (200, JSON); on AWS S3 does (200, empty).
call 200 PUT "$upload" -H "Content-Type: $mime" --data-binary "@$file"
ok "$size bytes"

step="3 start"
call 202 POST "$base/v1/jobs/$id/start" -H "X-API-Key: $key"
[ "$(json .status)" = queued ] || fail "the started job is not queued"
ok "queued"

step="4 poll"
deadline=$(($(date +%s) + timeout))
while :; do
	call 200 GET "$base/v1/jobs/$id" -H "X-API-Key: $key"
	status=$(json .status)
	case "$status" in
	queued | processing) ;;
	done) break ;;
	*) fail "the job ended $status: $(jq -c '.error // .' "$tmp/body")" ;;
	esac
	[ "$(date +%s)" -lt "$deadline" ] || fail "the job is still $status after ${timeout} s (SMOKE_TIMEOUT)"
	sleep 2
done
total=$(json .summary.total_detections)
pages=$(json '.pages | length')
page0=$(json '.pages[0].detection_count')
[ "$total" -ge "$min_detections" ] || fail "the job found $total detections, want at least $min_detections (SMOKE_MIN_DETECTIONS)"
ok "done: $pages page(s), $total detections"

step="5 detections"
call 200 GET "$base/v1/jobs/$id/pages/0/detections?limit=2" -H "X-API-Key: $key"
[ "$(json .total)" = "$page0" ] || fail "page 0 lists $(json .total) detections, its poll said $page0"
if [ "$page0" -gt 0 ]; then
	json '.detections[0] | .class, .confidence, .bbox_px.width' > /dev/null
fi
ok "page 0: $page0, first $(jq -c '.detections[0] // {} | {class, confidence}' "$tmp/body")"

step="6 takeoff.csv"
call 200 GET "$base/v1/jobs/$id/takeoff.csv" -H "X-API-Key: $key"
head -1 "$tmp/body" | grep -q '^class,display_name,category,.*,count,printed_quantity' || fail "the CSV's header is not the take-off's"
# count is third from the end (a quoted display name may hold commas; printed_quantity and withheld not).
counted=$(tail -n +2 "$tmp/body" | awk -F, '$(NF-2) ~ /^[0-9]+$/ {n += $(NF-2)} END {print n + 0}')
[ "$counted" = "$total" ] || fail "the take-off counts $counted symbols, the job $total"
ok "$(($(wc -l < "$tmp/body") - 1)) classes, $counted symbols"

echo "smoke: PASSED in $(($(date +%s) - t0)) s (job $id)"
