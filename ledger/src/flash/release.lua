-- Gives reservations back: the database refused or failed their claims.
-- KEYS: 1 stock, 2 claimers. ARGV: 1 units of stock to give back, then the
-- users whose claim to give back, one per reservation.
-- Keys that are gone (flushed, or never warmed) are left gone: the next
-- warm-up reads Postgres.
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('INCRBY', KEYS[1], ARGV[1])
for i = 2, #ARGV do
  if redis.call('HINCRBY', KEYS[2], ARGV[i], -1) <= 0 then
    redis.call('HDEL', KEYS[2], ARGV[i])
  end
end
return #ARGV - 1
