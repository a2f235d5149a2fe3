-- Resets a template's gate from Postgres (warm-up and reconciliation).
-- KEYS: 1 stock, 2 claimers, 3 the claimers just loaded (or absent: keep the
-- claimers as they are). ARGV: 1 remaining stock in Postgres, 2 ttl in seconds,
-- 3 "full" when the claimers were reloaded (none loaded: no claimers).
-- Returns the stock Redis held before (-1 when it held none), to count
-- corrections.
-- The old claimers are UNLINKed, not overwritten: RENAME onto a hash frees
-- it inside the call (134 ms for 200,000 claimers on a busy machine, past
-- the clients' timeout), UNLINK frees it on Redis' background thread.
local before = tonumber(redis.call('GET', KEYS[1]) or '-1')
if redis.call('EXISTS', KEYS[3]) == 1 then
  redis.call('UNLINK', KEYS[2])
  redis.call('RENAME', KEYS[3], KEYS[2])
elseif ARGV[3] == 'full' then
  redis.call('UNLINK', KEYS[2])
end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('EXPIRE', KEYS[2], ARGV[2])
end
return before
