"""The CronHorizontalPodAutoscaler controller (``autoscaling.alibabacloud.com/v1beta1``)."""
