-- A minimal token bucket in one round trip: the baseline every other limiter is measured against.
-- KEYS[1] the bucket (a hash: l = level, t = time of the level)
-- ARGV[1] capacity, ARGV[2] tokens refilled per period, ARGV[3] period in microseconds,
-- ARGV[4] now in microseconds (the client's clock), ARGV[5] key time to live in milliseconds
-- Returns 1 when a token was taken, else minus the microseconds until one is back.
-- The level counts tokens times the period, so refill is exact integer arithmetic.
local capacity = tonumber(ARGV[1])
local refill = tonumber(ARGV[2])
local period = tonumber(ARGV[3])
local now = tonumber(ARGV[4])
local full = capacity * period
local state = redis.call('HMGET', KEYS[1], 'l', 't')
local level = tonumber(state[1])
local last = tonumber(state[2])
if level == nil or last == nil then
  level = full
  last = now
end
if now > last then
  level = math.min(full, level + (now - last) * refill)
  last = now
end
if level < period then
  return -math.ceil((period - level) / refill)
end
redis.call('HSET', KEYS[1], 'l', level - period, 't', last)
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
