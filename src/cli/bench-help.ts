// The help text of `autobench bench`: SGLang bench_serving's flags, with our defaults and exit statuses.
import { BACKENDS } from '../client/backends';
import { DATASET_NAMES } from '../core/workload/options';

export const BENCH_HELP = `usage: autobench bench [--backend B] [--base-url URL | --host H --port P]
                       [--dataset-name D] [--num-prompts N] [options]

Drive an LLM server with a streaming workload and report TTFT, TPOT, ITL, E2E
and throughput, the way SGLang's bench_serving does (same flag names), with
timestamps taken when bytes arrive.

server:
  --backend B              ${BACKENDS.join(', ')}
                           (default sglang; sglang = native /generate,
                           *-oai/vllm/openai = /v1/completions, *-chat = /v1/chat/completions)
  --base-url URL           server base URL; else http://HOST:PORT
  --host H --port P        default 127.0.0.1 and the backend's port (30000 sglang*, 8000 others)
  --model M                model id (default: the first of GET /v1/models)
  --served-model-name M    model name sent in request bodies (default: --model)
  --tokenizer PATH         local tokenizer.json or model folder (default: --model when it is a folder);
                           autobench-sim: the simulated engine's (what a simulated run's prompts used)
  --chat-template FILE     Jinja chat template overriding the tokenizer's
  --header K=V ...         extra request headers (Authorization comes from OPENAI_API_KEY)
  --disable-stream         wait for whole responses (TTFT = E2E)
  --disable-ignore-eos     let generation stop at EOS (ignore_eos is sent by default)
  --extra-request-body J   JSON merged into every body (a row's extra_request_body wins)
  --temperature T          default 0.0;  --top-p P
  --no-include-usage       do not ask for the usage chunk (stream_options.include_usage)
  --continuous-usage-stats ask for usage on every chunk (vLLM), for per-token ITL
  --tokenize-prompt        send random-ids prompts as input_ids (sglang native)
  --chat-max-tokens-field F  max_completion_tokens (default) or max_tokens

dataset:
  --dataset-name D         ${DATASET_NAMES.join(', ')} (default random)
                           builtin-text: natural-language prompts shipped with autobench (chat,
                           code, math, summarisation) at the --random-* lengths, sent as text
  --dataset-path PATH      sharegpt JSON, custom JSONL, mooncake trace JSONL, trace-csv CSV
                           (random: a ShareGPT file to recycle text from; optional)
                           trace-csv: a timestamp and token columns per request (Azure:
                           TIMESTAMP, ContextTokens, GeneratedTokens; BurstGPT: Timestamp,
                           Request tokens, Response tokens), replayed at its pace
                           (--mooncake-slowdown-factor stretches it)
  --num-prompts N          default 1000 (custom, mooncake, trace-csv: <= 0 means every row)
  --seed S                 default 42 (dataset and arrivals use separate streams)
  --random-input-len N     default 1024;  --random-output-len N  default 1024 (random*, builtin-text)
  --random-range-ratio R   default 0.0; SGLang convention: lengths uniform over
                           [max(floor(L*R), 1), L], so 0 gives 1..L and 1 gives L
  --range-ratio-convention C  sglang (default) or vllm: [floor(L(1-R)), ceil(L(1+R))], R < 1
  --sharegpt-output-len N  override output lengths (>= 4);  --sharegpt-context-len N
  --gsp-num-groups N (64) --gsp-prompts-per-group N (16) --gsp-system-prompt-len N (2048)
  --gsp-question-len N (128) --gsp-output-len N (256) --gsp-range-ratio R (1.0)
  --gsp-num-turns N (1) --gsp-ordered --gsp-send-routing-key
  --gsp-turn-delay-ms MS (0)  mean think time before each later turn, after the previous answer;
                           --gsp-turn-delay-cv CV (1): 0 fixed, else lognormal with that spread
  --mooncake-slowdown-factor F (1.0) --mooncake-num-rounds N (1)
                           a trace with session_id/delay fields replays each session as a
                           conversation (chat backend), later turns after their delay
  --apply-chat-template    render text prompts through the chat template
  --prompt-suffix S        appended to every prompt
  --verify-budget-tokens N re-encode up to N prompt tokens to check lengths (20000)

traffic:
  --request-rate R         requests/s, or inf (default: all at once)
  --burstiness B           gamma shape of the gaps: 1 Poisson (default), <1 burstier
  --max-concurrency N      requests in flight at most
  --warmup-requests N      default 1 (first row, <= 32 output tokens, not measured)
  --flush-cache            flush the server's prefix cache after warmup
  --request-timeout S      per request, default 21600
  --ready-check-timeout-sec S  wait for GET /v1/models, default 60 (0: one try)
  --goodput SLO ...        ttft:MS tpot:MS e2e:MS (e2el also accepted)
  --workers N|auto         threads that send and time requests (default auto: one per
                           40k expected chunks/s, up to the cores, less one for a
                           server on this machine); all share one clock and one cap

output:
  --output-file PATH       append one JSON line (SGLang's field names, then ours)
  --output-details         add per-request arrays (input_lens, output_lens, ttfts, itls, ...)
  --tag T                  stored in the JSON line
  --disable-tqdm           no progress bar (it shows on a TTY only anyway)
  -h, --help               show this help

Every flag is checked, and --output-file opened, before any prompt is built.
A refused connection ends at once: nobody else is starting the server.

exit status: 0 the run finished (failed requests are reported, not fatal),
1 the server is unreachable or never became ready / every warmup failed /
the flush failed / --output-file cannot be written, 2 bad arguments`;
