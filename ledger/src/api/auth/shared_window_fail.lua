-- One failure counted against each key's fixed window (api/shared_windows.rs).
-- KEYS: the counters. ARGV: 1 the window in milliseconds.
-- A window starts at its key's first failure and ends when the key expires.
for _, key in ipairs(KEYS) do
  local n = redis.call('INCR', key)
  -- PTTL -1: a counter without an end (never written so by this script,
  -- but one would limit its key forever): give it this window.
  if n == 1 or redis.call('PTTL', key) == -1 then
    redis.call('PEXPIRE', key, ARGV[1])
  end
end
return 0
