"""Pure domain logic: models and every rule of the specification.

Nothing in this package performs I/O or imports temporalio, neo4j, boto3 or model libraries;
workflows and adapters orchestrate and store, the rules live here.
"""
