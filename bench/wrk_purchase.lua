-- wrk script of the flashstock benchmark (bench/run.sh). Run with one thread: wrk -t1 -c<N> -s bench/wrk_purchase.lua
--
-- Settings come from the environment:
--   BENCH_MODE        purchase (POST /items/{sku}/purchases), noop (GET /q/health/live, the HTTP floor) or
--                     availability (GET /items/{sku}/availability, the read storm)
--   BENCH_SKU         item to buy
--   BENCH_PREFIX      makes user ids and Idempotency-Keys unique to this run (keep it short: keys are <= 64 chars)
--   BENCH_REQUESTS    send at most this many measured requests (0: no limit)
--   BENCH_SECONDS     send measured requests for this many seconds (0: no limit)
--   BENCH_REPEAT_PCT  every request whose number is a multiple of 100/BENCH_REPEAT_PCT reuses the user id of an
--                     earlier request (with a new Idempotency-Key): the repeated buyers of a sell-out. 0: none
--   BENCH_AUTH        "Bearer <token>" sent with every purchase and availability read (a shop's token)
--   BENCH_KEYS        the purchases' Idempotency-Key: unset, a key per request made of BENCH_PREFIX and its number;
--                     random, a random one per request (the keyed sold-out storm); 0, none (the key-less storm)
--   BENCH_TOKENS      a file of "<sub> <token>" lines (bench/MintTokens.java): purchase number n is sent as the buyer
--                     of line BENCH_TOKENS_FROM + n (from 0), with that token and that sub as its userId, instead of
--                     BENCH_AUTH and a user id of its own; the lines are not cycled, so BENCH_REQUESTS must not
--                     exceed the lines left (the storm of distinct buyer tokens: no token is sent twice)
--
-- Counting is exact: once the budget (count or time) is spent, connections stop sending (see delay()), and the run
-- stops itself as soon as every measured request has its answer. So the 2xx count is the number of orders the
-- service must have, and no purchase is cut off in flight. The stop interrupts wrk (SIGINT to itself) so that it
-- does not sleep out its -d, which only serves as a safety limit. Latency percentiles are wrk's, over the
-- measured requests (plus the odd uncounted no-op, reported as noops=).
--
-- done() prints one line: "BENCH_RESULT key=value ...", read by bench/run.sh.

local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
  int clock_gettime(int clock_id, bench_timespec *ts);
  int getpid(void);
  int kill(int pid, int sig);
]]

local CLOCK_MONOTONIC, SIGINT = 1, 2
local timespec = ffi.new("bench_timespec")
local function now()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, timespec)
  return tonumber(timespec.tv_sec) + tonumber(timespec.tv_nsec) / 1e9
end

local mode = os.getenv("BENCH_MODE") or "purchase"
-- BENCH_KEYS=0: purchases without an Idempotency-Key (the sold-out storm: buyers and bots hammering the button,
-- which a pod answers from memory); BENCH_KEYS=random: each with a random key of its own (the keyed sold-out storm:
-- a pod may answer it from memory only when it can tell the key is not an earlier success's)
local keys = os.getenv("BENCH_KEYS") or "" -- "", "random" or "0"
local tokens_file = os.getenv("BENCH_TOKENS")
local tokens_from = tonumber(os.getenv("BENCH_TOKENS_FROM") or "0")
local sku = os.getenv("BENCH_SKU") or "bench-item"
local prefix = os.getenv("BENCH_PREFIX") or "run"
local max_requests = tonumber(os.getenv("BENCH_REQUESTS") or "0")
local max_seconds = tonumber(os.getenv("BENCH_SECONDS") or "0")
local repeat_pct = tonumber(os.getenv("BENCH_REPEAT_PCT") or "0")
local auth = os.getenv("BENCH_AUTH") -- "Bearer <token>" for the API (the no-op health read needs none)
local repeat_every = repeat_pct > 0 and math.floor(100 / repeat_pct + 0.5) or 0

local purchase_path = "/items/" .. sku .. "/purchases"
local noop_request, availability_request -- built in init(): wrk.format needs the host, which is known only then
local buyer_subs, buyer_auths = {}, {} -- with BENCH_TOKENS: the buyers of its lines from BENCH_TOKENS_FROM on

-- Per-thread state: globals, because done() runs in another Lua state and reads them through thread:get.
sent, received, repeats, noops = 0, 0, 0, 0
counts = { s2xx = 0, s409_sold_out = 0, s409_limit = 0, s409_other = 0, s503 = 0, s4xx = 0, s5xx = 0, other = 0 }
first_sent, last_received = nil, nil
local deadline = nil
local stopping = false

local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  math.randomseed(12345)
  noop_request = wrk.format("GET", "/q/health/live")
  availability_request = wrk.format("GET", "/items/" .. sku .. "/availability", { ["Authorization"] = auth })
  if tokens_file then
    local file = assert(io.open(tokens_file, "r"))
    local line_no = 0
    for line in file:lines() do
      if line_no >= tokens_from and (max_requests == 0 or line_no < tokens_from + max_requests) then
        local sub, token = line:match("^(%S+) (%S+)$")
        table.insert(buyer_subs, sub)
        table.insert(buyer_auths, "Bearer " .. token)
      end
      line_no = line_no + 1
    end
    file:close()
    assert(max_requests > 0 and #buyer_subs >= max_requests,
      "BENCH_TOKENS: " .. #buyer_subs .. " tokens from line " .. tokens_from .. ", fewer than BENCH_REQUESTS")
  end
end

local function budget_spent()
  if max_requests > 0 and sent >= max_requests then
    return true
  end
  return deadline ~= nil and now() >= deadline
end

local function user_for(n)
  if repeat_every > 0 and n > repeat_every and n % repeat_every == 0 then
    repeats = repeats + 1
    local earlier = math.random(1, n - 1)
    if earlier % repeat_every == 0 then
      earlier = earlier - 1 -- that request was itself a repeat: take its neighbour, a first-time buyer
    end
    return prefix .. "-u" .. earlier
  end
  return prefix .. "-u" .. n
end

-- wrk calls request() once before the run to check what it returns (script_verify_request): that call is not a
-- request on the wire, so it gets the no-op and is not counted.
local verified = false

function request()
  if not verified then
    verified = true
    return noop_request
  end
  if first_sent == nil then
    first_sent = now()
    if max_seconds > 0 then
      deadline = first_sent + max_seconds
    end
  end
  if budget_spent() then
    -- Rare: the budget ran out between delay() and this call. Not counted.
    return noop_request
  end
  sent = sent + 1
  if mode == "noop" then
    return noop_request
  elseif mode == "availability" then
    return availability_request
  end
  local user, authorization = nil, auth
  if tokens_file then
    user, authorization = buyer_subs[sent], buyer_auths[sent]
  else
    user = user_for(sent)
  end
  local body = '{"userId":"' .. user .. '","quantity":1}'
  local headers = {
    ["Content-Type"] = "application/json",
    ["Authorization"] = authorization,
  }
  if keys == "random" then
    -- 62 random bits first, then the run's prefix and the number, which keep it unique
    headers["Idempotency-Key"] = string.format("%08x%08x-%s-%d", math.random(0, 0x7fffffff),
      math.random(0, 0x7fffffff), prefix, sent)
  elseif keys ~= "0" then
    headers["Idempotency-Key"] = prefix .. "-k" .. sent
  end
  return wrk.format("POST", purchase_path, headers, body)
end

-- Once the budget is spent a connection parks (its next request waits an hour) instead of sending more, so the
-- last measured answers come back without extra load, and the run stops when they are all in. Purchases only: for
-- the reads (noop, availability) the tail is a millisecond, and a delay() hook costs wrk a timer per request,
-- which would lower the floor and the read storm measured against it.
-- The run ends once the budget is spent and every measured request has its answer. Checked after each answer and
-- before each parked request: when the last answer came just before the budget ran out, no answer follows it, and
-- without the second check wrk sat parked until its -d (seen: a 126 s settle round).
local function stop_if_all_answered()
  if not stopping and first_sent ~= nil and budget_spent() and received >= sent then
    stopping = true
    wrk.thread:stop()
    ffi.C.kill(ffi.C.getpid(), SIGINT)
  end
end

if mode == "purchase" then
  function delay()
    if first_sent ~= nil and budget_spent() then
      stop_if_all_answered()
      return 3600 * 1000
    end
    return 0
  end
end

local function count(status, body)
  if status >= 200 and status < 300 then
    counts.s2xx = counts.s2xx + 1
  elseif status == 409 then
    if body and body:find("sold-out", 1, true) then
      counts.s409_sold_out = counts.s409_sold_out + 1
    elseif body and body:find("purchase-limit", 1, true) then
      counts.s409_limit = counts.s409_limit + 1
    else
      counts.s409_other = counts.s409_other + 1
    end
  elseif status == 503 then
    counts.s503 = counts.s503 + 1
  elseif status >= 400 and status < 500 then
    counts.s4xx = counts.s4xx + 1
  elseif status >= 500 then
    counts.s5xx = counts.s5xx + 1
  else
    counts.other = counts.other + 1
  end
end

function response(status, headers, body)
  -- After the budget is spent, connections send no-ops while the last measured requests are answered. A no-op's
  -- answer is the health document (with "checks"; an availability document has none); in noop mode every
  -- request is one, so the first `sent` count.
  local is_noop
  if mode == "noop" then
    is_noop = received >= sent
  else
    is_noop = status == 200 and body ~= nil and body:find('"checks"', 1, true) ~= nil
  end
  if is_noop then
    noops = noops + 1
  else
    received = received + 1
    last_received = now()
    count(status, body)
  end
  stop_if_all_answered()
end

function done(summary, latency, requests)
  local total = { sent = 0, received = 0, repeats = 0, noops = 0, seconds = 0 }
  local per_status = {}
  for _, thread in ipairs(threads) do
    total.sent = total.sent + thread:get("sent")
    total.received = total.received + thread:get("received")
    total.repeats = total.repeats + thread:get("repeats")
    total.noops = total.noops + thread:get("noops")
    local first, last = thread:get("first_sent"), thread:get("last_received")
    if first and last and last - first > total.seconds then
      total.seconds = last - first
    end
    local c = thread:get("counts")
    for k, v in pairs(c) do
      per_status[k] = (per_status[k] or 0) + v
    end
  end
  local e = summary.errors
  local line = string.format(
    "BENCH_RESULT sent=%d received=%d seconds=%.3f rps=%.1f p50_us=%d p99_us=%d max_us=%d repeats=%d noops=%d"
      .. " socket_errors=%d timeouts=%d",
    total.sent, total.received, total.seconds, total.seconds > 0 and total.received / total.seconds or 0,
    latency:percentile(50), latency:percentile(99), latency.max, total.repeats, total.noops,
    e.connect + e.read + e.write, e.timeout)
  for _, k in ipairs({ "s2xx", "s409_sold_out", "s409_limit", "s409_other", "s503", "s4xx", "s5xx", "other" }) do
    line = line .. string.format(" %s=%d", k, per_status[k] or 0)
  end
  io.write(line .. "\n")
end
