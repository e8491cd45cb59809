-- wrk script: GetSchedule of a random one of the N schedules scheduler_load created
-- (names bench-000000 ... bench-<N-1>). N comes from the environment (SCHEDULES, default 100000).
local n = tonumber(os.getenv("SCHEDULES") or "100000")
math.randomseed(os.time())
request = function()
  return wrk.format("GET", string.format("/schedules/bench-%06d?groupName=default", math.random(0, n - 1)))
end
