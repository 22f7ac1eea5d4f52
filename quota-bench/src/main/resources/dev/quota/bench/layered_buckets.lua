-- Several token buckets checked and taken together in one round trip, all or nothing: the floor of
-- a decision that touches several buckets (the demo's transfer: plan, calendar day, the transfers
-- rule per customer and shared, the amount per day). Same arithmetic as token_bucket.lua.
-- KEYS[i]  bucket i, a hash; for its limit j: l<j> = level, t<j> = time of the level (greedy) or
--          start of the current interval (interval)
-- ARGV[1]  now in microseconds (the client's clock)
-- then for each bucket: tokens to take, key time to live in milliseconds, number of limits n,
--          then n times: capacity, refill tokens, period in microseconds, kind:
--          'g' greedy: refill tokens drip back over each period;
--          'i' interval: refill tokens come back at once at the end of each period, counted from
--              the bucket's first use;
--          'c' calendar: the key names one calendar window; the bucket starts full and never
--              refills (the next window is another key); the period argument is the window's end
--              in epoch microseconds.
-- Returns 1 when every limit of every bucket had the tokens and they were taken from all; else
-- minus the microseconds until the limits that lacked tokens have them again (the longest of their
-- waits), and nothing is written.
-- Greedy levels count tokens times the period, so refill is exact integer arithmetic; interval and
-- calendar levels count whole tokens.
-- Not cluster-safe as the bench uses it: the shared bucket's key is in another slot than the
-- customer's keys (Redis Cluster would refuse the script with CROSSSLOT).
local now = tonumber(ARGV[1])
local a = 2
local writes = {}
local short = false
local wait = 0
for i = 1, #KEYS do
  local tokens = tonumber(ARGV[a])
  local ttl = ARGV[a + 1]
  local n = tonumber(ARGV[a + 2])
  a = a + 3
  local names = {}
  for j = 1, n do
    names[2 * j - 1] = 'l' .. j
    names[2 * j] = 't' .. j
  end
  local state = redis.call('HMGET', KEYS[i], unpack(names))
  local fields = {}
  for j = 1, n do
    local capacity = tonumber(ARGV[a])
    local refill = tonumber(ARGV[a + 1])
    local period = tonumber(ARGV[a + 2])
    local kind = ARGV[a + 3]
    a = a + 4
    local level = tonumber(state[2 * j - 1])
    local last = tonumber(state[2 * j])
    if kind == 'g' then
      local full = capacity * period
      if level == nil or last == nil then
        level = full
        last = now
      end
      if now > last then
        level = math.min(full, level + (now - last) * refill)
        last = now
      end
      local need = tokens * period
      if level < need then
        short = true
        wait = math.max(wait, math.ceil((need - level) / refill))
      end
      level = level - need
    elseif kind == 'i' then
      if level == nil or last == nil then
        level = capacity
        last = now
      end
      if now >= last + period then
        local periods = math.floor((now - last) / period)
        level = math.min(capacity, level + periods * refill)
        last = last + periods * period
      end
      if level < tokens then
        short = true
        wait = math.max(wait, last + period - now)
      end
      level = level - tokens
    else
      if level == nil then
        level = capacity
      end
      last = 0
      if level < tokens then
        short = true
        wait = math.max(wait, period - now)
      end
      level = level - tokens
    end
    fields[4 * j - 3] = 'l' .. j
    fields[4 * j - 2] = level
    fields[4 * j - 1] = 't' .. j
    fields[4 * j] = last
  end
  writes[i] = {ttl, fields}
end
if short then
  return -math.max(1, wait)
end
for i = 1, #KEYS do
  redis.call('HSET', KEYS[i], unpack(writes[i][2]))
  redis.call('PEXPIRE', KEYS[i], writes[i][1])
end
return 1
