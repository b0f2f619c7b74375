-- wrk script for bench/run.ts: POSTs BENCH_BODY with BENCH_AUTH as the Authorization header to
-- the URL given on the command line, and at the end prints one machine-readable line:
--   BENCH_JSON {"requests":…, "duration_us":…, "bytes":…, "errors":{…}, "latency_us":{"p50":…,"p90":…,"p99":…,"mean":…,"max":…}}
local body = os.getenv("BENCH_BODY") or error("BENCH_BODY is not set")
local authorization = os.getenv("BENCH_AUTH") or error("BENCH_AUTH is not set")

-- The request is written out whole, its headers in one order: wrk.format lays headers out in the
-- order of a Lua table, which differs from one wrk process to the next. Node builds each request's
-- header object in the order the headers came, so every run brought the servers a new hidden class
-- to read headers from, and their header-reading functions were deoptimised and recompiled inside
-- the measured run (seen with --trace-deopt: "wrong map" in parserOnIncoming, bearerToken…).
local raw
init = function(args)
  raw = "POST " .. wrk.path .. " HTTP/1.1\r\n" ..
    "Host: " .. wrk.headers["Host"] .. "\r\n" ..
    "Content-Type: application/json\r\n" ..
    "Authorization: " .. authorization .. "\r\n" ..
    "Content-Length: " .. #body .. "\r\n\r\n" .. body
end

request = function()
  return raw
end

-- BENCH_STAGGER_MS (with BENCH_STAGGER_CONNECTIONS, the run's connections): the connections' first
-- requests spread over that many ms instead of all at once (bench/tail-in-step.ts); wrk starts a
-- request's latency when it writes it, after the delay. Unset, no delay function: wrk's usual
-- path, every connection at once.
local stagger = tonumber(os.getenv("BENCH_STAGGER_MS") or "")
local connections = tonumber(os.getenv("BENCH_STAGGER_CONNECTIONS") or "")
if stagger and connections then
  local delayed = 0
  delay = function()
    if delayed >= connections then return 0 end
    delayed = delayed + 1
    return math.floor(stagger * (delayed - 1) / connections)
  end
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"duration_us":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"p50":%d,"p90":%d,"p99":%d,"p999":%d,"mean":%.1f,"max":%d}}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9),
    latency.mean, latency.max))
end
