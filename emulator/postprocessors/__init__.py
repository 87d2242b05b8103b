"""Debezium's post processors (`post.processors`), applied by the dispatcher before transforms."""
