-- wrk script of bench/abuse.sh: ABUSE_REQUESTS requests, each for a made-up sku of its own (ABUSE_PREFIX-<n>, within
-- the sku allow-list of io.flashstock.web.InputRules), then the run stops itself. Run with one thread:
--   wrk -t1 -c16 -d600s --timeout 10s -s bench/wrk_abuse.lua URL
-- Settings from the environment:
--   ABUSE_MODE      purchase (POST /items/{sku}/purchases, body {"quantity":1}) or availability
--                   (GET /items/{sku}/availability)
--   ABUSE_AUTH      "Bearer <token>" sent with every request (one buyer's)
--   ABUSE_KEYS      random: each purchase with a random Idempotency-Key of its own; anything else: none
-- done() prints one line: "ABUSE_RESULT sent=.. received=.. seconds=.. rps=.. s404=.. other=.. errors=..".

local ffi = require("ffi")
ffi.cdef [[
  int getpid(void);
  int kill(int pid, int sig);
]]

local mode = os.getenv("ABUSE_MODE") or "purchase"
local prefix = assert(os.getenv("ABUSE_PREFIX"), "ABUSE_PREFIX is required")
local budget = assert(tonumber(os.getenv("ABUSE_REQUESTS") or ""), "ABUSE_REQUESTS is required")
local auth = os.getenv("ABUSE_AUTH")
local random_keys = os.getenv("ABUSE_KEYS") == "random"

-- Globals: done() runs in another Lua state and reads them through thread:get.
granted, sent, received, s404, other = 0, 0, 0, 0, 0
local verified, stopping = false, false

local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  math.randomseed(os.time())
end

-- A request is granted in delay(), which wrk calls before each request() of a connection: once the budget is
-- granted, connections park (an hour) and the run stops when the last answer is in.
local function stop_if_done()
  if not stopping and received >= budget then
    stopping = true
    wrk.thread:stop()
    ffi.C.kill(ffi.C.getpid(), 2) -- SIGINT: wrk stops sleeping out its -d and reports
  end
end

function delay()
  if granted < budget then
    granted = granted + 1
    return 0
  end
  stop_if_done()
  return 3600 * 1000
end

function request()
  if not verified then -- wrk's check of what request() returns, before the run: never sent
    verified = true
    return wrk.format("GET", "/q/health/live")
  end
  sent = sent + 1
  local sku = prefix .. "-" .. sent
  local headers = { ["Authorization"] = auth }
  if mode == "availability" then
    return wrk.format("GET", "/items/" .. sku .. "/availability", headers)
  end
  headers["Content-Type"] = "application/json"
  if random_keys then
    headers["Idempotency-Key"] = string.format("%08x%08x-%d", math.random(0, 0x7fffffff),
      math.random(0, 0x7fffffff), sent)
  end
  return wrk.format("POST", "/items/" .. sku .. "/purchases", headers, '{"quantity":1}')
end

function response(status, headers, body)
  received = received + 1
  if status == 404 then
    s404 = s404 + 1
  else
    other = other + 1
  end
  stop_if_done()
end

function done(summary, latency, requests)
  local t = { sent = 0, received = 0, s404 = 0, other = 0 }
  for _, thread in ipairs(threads) do
    for k in pairs(t) do
      t[k] = t[k] + thread:get(k)
    end
  end
  local seconds = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format("ABUSE_RESULT sent=%d received=%d seconds=%.1f rps=%.0f s404=%d other=%d errors=%d\n",
    t.sent, t.received, seconds, seconds > 0 and t.received / seconds or 0, t.s404, t.other,
    e.connect + e.read + e.write + e.timeout))
end
