"""What an operator watches: OpenTelemetry traces (`tracing`) and Prometheus metrics (`metrics`,
`backlog`). Off-by-default tracing costs nothing until the standard `OTEL_*` variables ask for it.
"""
