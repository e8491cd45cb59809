-- wrk script: GetSchedule of a random one of the N schedules scheduler_load created
-- (names bench-000000 ... bench-<N-1>, group default). N comes from the environment
-- (SCHEDULES, default 100000). The Authorization header carries a SigV4 credential scope, as
-- every SDK request does, so servers that route on it (moto) find the Scheduler service; the
-- signature itself is not checked by either emulator.
local n = tonumber(os.getenv("SCHEDULES") or "100000")
math.randomseed(os.time())
wrk.headers["Authorization"] =
  "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/scheduler/aws4_request, "
  .. "SignedHeaders=host;x-amz-date, Signature=0000000000000000000000000000000000000000000000000000000000000000"
wrk.headers["X-Amz-Date"] = "20260101T000000Z"
request = function()
  return wrk.format("GET", string.format("/schedules/bench-%06d?groupName=default", math.random(0, n - 1)))
end
