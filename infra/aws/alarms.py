"""CloudWatch alarms, all to one SNS topic; docs/deploy.md says what each means and what to do.

- every queue: a message in its DLQ; its oldest message older than twice its visibility timeout
  (a consumer that reports partial batch failures never shows a Lambda error, but its messages age);
  machine queues are made at run time, and the API puts the same DLQ alarm on each as it makes it
  (chalicelib/kernel/dlq_alarms.py);
- every function: errors; a run longer than 80% of its timeout; throttles (not for schedules,
  which run one at a time by design, so a tick waiting for the last run is a throttle);
- the API: 5XX answers, a share of 4XX answers (refused keys, probing) and latency (p95 over 3 s
  for 15 minutes);
- the database: CPU busy, CPU credits running out, memory running out, free storage under 2 GB,
  connections near max_connections.

Every alarm mails `AlarmEmail`, which every deploy must name.
"""

from __future__ import annotations

from chalicelib.kernel.dlq_alarms import dlq_alarm
from chalicelib.kernel.queue_table import QUEUES
from infra.aws import capacity, functions
from infra.aws.api_gateway import api_name_dimensions
from infra.aws.cfn import Json, get_att, ref
from infra.aws.queues import dlq_id, queue_id

PERIOD_S = 300
NEAR_TIMEOUT_SHARE = 0.8
API_5XX_PER_PERIOD = 5
API_P95_LATENCY_MS = 3000
API_4XX_SHARE = 0.25  # of the answers in 5 minutes, for 15 minutes...
API_4XX_MIN_REQUESTS = 20  # ...when there were at least this many (a few refusals are no pattern)
DB_CPU_PERCENT = 80
DB_FREEABLE_MEMORY_MIN_BYTES = 128 * 1024**2
CPU_CREDITS_MIN = 20
FREE_STORAGE_MIN_BYTES = 2 * 1024**3
API_ID = "APIHandler"
HEALTH_PAGED_CHECKS = ("api", "database", "queues")


def alarm(description: str, namespace: str, metric: str, dimensions: list[Json], statistic: str, *,
          threshold: float | Json = 1, above: bool = True, periods: int = 1) -> Json:
    stat: Json = {"ExtendedStatistic": statistic} if statistic.startswith("p") else {"Statistic": statistic}
    return {"Type": "AWS::CloudWatch::Alarm", "Properties": {
        "AlarmDescription": description, "Namespace": namespace, "MetricName": metric,
        "Dimensions": dimensions, **stat, "Period": PERIOD_S, "EvaluationPeriods": periods,
        "Threshold": threshold,
        "ComparisonOperator": "GreaterThanOrEqualToThreshold" if above else "LessThanThreshold",
        "TreatMissingData": "notBreaching",
        "AlarmActions": [ref("AlarmTopic")], "OKActions": [ref("AlarmTopic")]}}


def _queue_alarms() -> Json:
    res: Json = {}
    for spec in QUEUES:
        res[f"{dlq_id(spec)}DepthAlarm"] = {"Type": "AWS::CloudWatch::Alarm", "Properties": {
            **dlq_alarm(get_att(dlq_id(spec), "QueueName"), ref("AlarmTopic")),
            "AlarmDescription": f"Messages are waiting in the {spec.key} DLQ"}}
        queue = [{"Name": "QueueName", "Value": get_att(queue_id(spec), "QueueName")}]
        res[f"{queue_id(spec)}AgeAlarm"] = alarm(
            f"The oldest {spec.key} message waited over {2 * spec.visibility_timeout_s} s", "AWS/SQS",
            "ApproximateAgeOfOldestMessage", queue, "Maximum", threshold=2 * spec.visibility_timeout_s)
    return res


def _function_alarms() -> Json:
    res: Json = {}
    specs = [functions.FunctionSpec(f"{API_ID}Function", "api", None, functions.API_TIMEOUT_S, ""),
             functions.MIGRATIONS, *functions.table_functions()]
    for fn in specs:
        fid = API_ID if fn.name == "api" else fn.logical_id
        dims = [{"Name": "FunctionName", "Value": ref(fid)}]
        res[f"{fn.base}ErrorsAlarm"] = alarm(f"{fid} raised errors", "AWS/Lambda", "Errors", dims, "Sum")
        limit_ms = int(fn.timeout_s * 1000 * NEAR_TIMEOUT_SHARE)
        res[f"{fn.base}DurationAlarm"] = alarm(
            f"{fid} ran over {limit_ms} ms, near its {fn.timeout_s} s timeout", "AWS/Lambda", "Duration",
            dims, "Maximum", threshold=limit_ms)
        if fn.schedule is None:
            res[f"{fn.base}ThrottlesAlarm"] = alarm(f"{fid} was throttled", "AWS/Lambda", "Throttles",
                                                    dims, "Sum")
    return res


def _api_4xx_share(api: list[Json]) -> Json:
    """4XX answers as a share of all answers, counted only when there were enough of them."""
    def metric(mid: str, name: str) -> Json:
        return {"Id": mid, "ReturnData": False, "MetricStat": {"Stat": "Sum", "Period": PERIOD_S, "Metric": {
            "Namespace": "AWS/ApiGateway", "MetricName": name, "Dimensions": api}}}

    return {"Type": "AWS::CloudWatch::Alarm", "Properties": {
        "AlarmDescription": f"Over {API_4XX_SHARE:.0%} of API answers were 4XX for 15 minutes "
                            "(refused keys, probing, or a client sending bad requests)",
        "Metrics": [metric("refused", "4XXError"), metric("answered", "Count"),
                    {"Id": "share", "ReturnData": True, "Label": "4XX share",
                     "Expression": f"IF(answered >= {API_4XX_MIN_REQUESTS}, refused / answered, 0)"}],
        "EvaluationPeriods": 3, "Threshold": API_4XX_SHARE,
        "ComparisonOperator": "GreaterThanOrEqualToThreshold", "TreatMissingData": "notBreaching",
        "AlarmActions": [ref("AlarmTopic")], "OKActions": [ref("AlarmTopic")]}}


def _api_and_database_alarms(stage: str) -> Json:
    api = api_name_dimensions(stage)
    db = [{"Name": "DBInstanceIdentifier", "Value": ref("Database")}]
    return {
        "Api4xxShareAlarm": _api_4xx_share(api),
        "DbCpuAlarm": alarm(f"Database CPU over {DB_CPU_PERCENT}% for 15 minutes", "AWS/RDS",
                            "CPUUtilization", db, "Average", threshold=DB_CPU_PERCENT, periods=3),
        "DbFreeableMemoryAlarm": alarm("The database has under 128 MB of memory free for 15 minutes",
                                       "AWS/RDS", "FreeableMemory", db, "Minimum",
                                       threshold=DB_FREEABLE_MEMORY_MIN_BYTES, above=False, periods=3),
        "Api5xxAlarm": alarm(f"The API answered 5XX {API_5XX_PER_PERIOD}+ times in 5 minutes",
                             "AWS/ApiGateway", "5XXError", api, "Sum", threshold=API_5XX_PER_PERIOD),
        "ApiLatencyAlarm": alarm(f"API p95 latency over {API_P95_LATENCY_MS} ms for 15 minutes",
                                 "AWS/ApiGateway", "Latency", api, "p95", threshold=API_P95_LATENCY_MS,
                                 periods=3),
        "DbCpuCreditsAlarm": alarm(f"The database has under {CPU_CREDITS_MIN} CPU credits left", "AWS/RDS",
                                   "CPUCreditBalance", db, "Minimum", threshold=CPU_CREDITS_MIN, above=False),
        "DbFreeStorageAlarm": alarm("The database has under 2 GB of free storage", "AWS/RDS",
                                    "FreeStorageSpace", db, "Minimum", threshold=FREE_STORAGE_MIN_BYTES,
                                    above=False),
        "DbConnectionsAlarm": alarm("Database connections reached 80% of max_connections", "AWS/RDS",
                                    "DatabaseConnections", db, "Maximum",
                                    threshold=capacity.find("ConnectionsAlarm")),
    }


def _health_alarms(stage: str) -> Json:
    """The health monitor's checks that page (functions/health_monitor.py): critical for 5 minutes."""
    return {f"Health{check.capitalize()}Alarm": alarm(
        f"The {check} health check was critical for 5 minutes", "Itachi/Health", "CheckLevel",
        [{"Name": "Stage", "Value": stage}, {"Name": "Check", "Value": check}], "Minimum", threshold=2)
        for check in HEALTH_PAGED_CHECKS}


def resources(stage: str) -> Json:
    res: Json = {
        "AlarmTopic": {"Type": "AWS::SNS::Topic", "Properties": {
            "DisplayName": "Itachi alarms"}},
        "AlarmEmailSubscription": {"Type": "AWS::SNS::Subscription", "Properties": {
            "TopicArn": ref("AlarmTopic"), "Protocol": "email", "Endpoint": ref("AlarmEmail")}},
    }
    res.update(_queue_alarms())
    res.update(_function_alarms())
    res.update(_api_and_database_alarms(stage))
    res.update(_health_alarms(stage))
    return res
