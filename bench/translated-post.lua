-- wrk script for bench/translated.ts: POSTs BENCH_BODY with the headers in BENCH_HEADERS
-- ("name: value|name: value") to the URL on the command line, and prints one machine-readable line:
--   BENCH_JSON {"requests":…, "duration_us":…, "errors":{…}, "latency_us":{"p50":…,"p90":…,"p99":…,"mean":…,"max":…}}
local body = os.getenv("BENCH_BODY") or error("BENCH_BODY is not set")

-- written out whole, the headers in the order given (see post.lua: wrk's own layout changes the
-- order from one wrk process to the next)
local raw
init = function(args)
  local lines = { "POST " .. wrk.path .. " HTTP/1.1", "Host: " .. wrk.headers["Host"], "Content-Type: application/json" }
  for pair in string.gmatch(os.getenv("BENCH_HEADERS") or "", "[^|]+") do
    local name, value = string.match(pair, "^%s*([^:]+):%s*(.*)$")
    lines[#lines + 1] = name .. ": " .. value
  end
  lines[#lines + 1] = "Content-Length: " .. #body
  raw = table.concat(lines, "\r\n") .. "\r\n\r\n" .. body
end

request = function()
  return raw
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"duration_us":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"p50":%d,"p90":%d,"p99":%d,"mean":%.1f,"max":%d}}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.mean, latency.max))
end
