"""The bulk-issuance upload: a `text/plain` file of user ids, one a line.
openapi-python-client generates no operation for a `text/plain` body, so
this one is written by hand (docs/reference/bulk-issuance.md)."""

from __future__ import annotations

from typing import Any, Iterable, Optional

from couponledger_api import AuthenticatedClient


def upload_user_file(
    client: AuthenticatedClient,
    template_sn: str,
    user_ids: Iterable[str],
    *,
    key: Optional[str] = None,
    notify: bool = False,
) -> Any:
    """`POST /v1/issuance-jobs?template=<sn>`: answers the job (202)."""
    params: dict[str, Any] = {"template": template_sn}
    if key is not None:
        params["key"] = key
    if notify:
        params["notify"] = "true"
    body = "".join(f"{user}\n" for user in user_ids).encode()
    response = client.get_httpx_client().post(
        "/v1/issuance-jobs", params=params, content=body,
        headers={"Content-Type": "text/plain"})
    response.raise_for_status()
    return response.json()
