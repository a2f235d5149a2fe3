-- One claim's way through the flash-sale gate, in one round trip (docs/design.md §12).
-- KEYS: 1 stock, 2 claimers (hash user -> coupons held), 3 channel bucket,
--       4 user bucket, 5 the request's nonce
-- ARGV: 1 user, 2 per-user limit, 3 channel rate, 4 channel burst,
--       5 user rate, 6 user burst (a rate of 0: no bucket),
--       7 '1' to apply the rate limits only (a keyed request: its stored answer wins),
--       8 seconds Redis remembers the nonce
-- Returns {code, wait_ms}: 0 reserved, 1 sold out, 2 user at limit,
-- 3 rate limited (wait_ms until a token), 4 cold (not warmed: ask Postgres),
-- 5 within the rate limits (with ARGV[7] = '1'), 6 the nonce was spent before.
if not redis.call('SET', KEYS[5], 1, 'NX', 'EX', ARGV[8]) then
  return {6, 0}
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

-- A bucket's level after refilling to now, in thousandths of a token.
local function level(key, rate, burst)
  local cap = burst * 1000
  local v = redis.call('HMGET', key, 'm', 'at')
  local m = tonumber(v[1]) or cap
  local at = tonumber(v[2]) or now
  if now > at then
    m = math.min(cap, m + (now - at) * rate)
    at = now
  end
  return m, at
end

local buckets = {{KEYS[3], tonumber(ARGV[3]), tonumber(ARGV[4])},
                 {KEYS[4], tonumber(ARGV[5]), tonumber(ARGV[6])}}
local levels = {}
local wait = 0
for i, b in ipairs(buckets) do
  if b[2] > 0 then
    local m, at = level(b[1], b[2], b[3])
    levels[i] = {m, at}
    if m < 1000 then
      wait = math.max(wait, math.ceil((1000 - m) / b[2]))
    end
  end
end
if wait > 0 then
  return {3, wait}
end
for i, b in ipairs(buckets) do
  if levels[i] then
    redis.call('HSET', b[1], 'm', levels[i][1] - 1000, 'at', levels[i][2])
    -- A bucket left alone refills completely: drop it then.
    redis.call('PEXPIRE', b[1], math.ceil(b[3] * 1000 / b[2]) + 1000)
  end
end

if ARGV[7] == '1' then
  return {5, 0}
end
local stock = redis.call('GET', KEYS[1])
if not stock then
  return {4, 0}
end
if tonumber(stock) <= 0 then
  return {1, 0}
end
local held = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
if held >= tonumber(ARGV[2]) then
  return {2, 0}
end
redis.call('DECR', KEYS[1])
redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
return {0, 0}
