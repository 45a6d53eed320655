"""Assertions on API responses shared by the end-to-end tests."""

from __future__ import annotations


def ok(response: dict) -> dict:
    assert response["ok"] is True, response
    return response


def assert_error(response: dict, kind: str, line: int | None = None) -> dict:
    """An error of ``kind`` with a message that is not a traceback (and on ``line``, when given)."""
    assert response["ok"] is False, response
    error = response["error"]
    assert error["kind"] == kind, response
    assert error["message"], response
    assert "Traceback" not in error["message"], response
    if line is not None:
        assert error["line"] == line, response
    return error
