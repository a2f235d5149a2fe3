-- How long until the windows of the used-up counters end (api/shared_windows.rs).
-- KEYS: the counters. ARGV: the limit of each counter, in the order of KEYS.
-- Returns milliseconds, 0 when no counter has reached its limit.
local wait = 0
for i, key in ipairs(KEYS) do
  local n = tonumber(redis.call('GET', key) or '0')
  if n >= tonumber(ARGV[i]) then
    wait = math.max(wait, redis.call('PTTL', key))
  end
end
return wait
