from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.template_view import TemplateView
from ...models.update_template import UpdateTemplate
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    sn: str,
    *,
    body: UpdateTemplate,
    idempotency_key: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    if not isinstance(x_request_id, Unset):
        headers["X-Request-Id"] = x_request_id



    

    

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/v1/templates/{sn}".format(sn=quote(str(sn), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | TemplateView | None:
    if response.status_code == 200:
        response_200 = TemplateView.from_dict(response.json())



        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())



        return response_401

    if response.status_code == 403:
        response_403 = ErrorBody.from_dict(response.json())



        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())



        return response_404

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())



        return response_409

    if response.status_code == 413:
        response_413 = ErrorBody.from_dict(response.json())



        return response_413

    if response.status_code == 415:
        response_415 = ErrorBody.from_dict(response.json())



        return response_415

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())



        return response_422

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())



        return response_429

    if response.status_code == 503:
        response_503 = ErrorBody.from_dict(response.json())



        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | TemplateView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    sn: str,
    *,
    client: AuthenticatedClient,
    body: UpdateTemplate,
    idempotency_key: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,

) -> Response[ErrorBody | TemplateView]:
    """ Change a template's name, reminder, rate limit, description or
    eligibility, move its issue window, raise its per-user limit or its
    budget (409 `budget_not_raised` for a lower one, or for a template
    created without one) or change the validity of the coupons it issues
    from now on. Each change is an
    event. Discount, scope, face value, kind, currency, stacking, refund
    policy and shop are immutable (409); the quota and status have their
    own routes.

    Args:
        sn (str):
        idempotency_key (str | Unset):
        x_request_id (str | Unset):
        body (UpdateTemplate): `PATCH /v1/templates/{sn}`: the template's attributes, and its
            campaign's window, per-user limit and validity (docs/design.md §15).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | TemplateView]
     """


    kwargs = _get_kwargs(
        sn=sn,
body=body,
idempotency_key=idempotency_key,
x_request_id=x_request_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    sn: str,
    *,
    client: AuthenticatedClient,
    body: UpdateTemplate,
    idempotency_key: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,

) -> ErrorBody | TemplateView | None:
    """ Change a template's name, reminder, rate limit, description or
    eligibility, move its issue window, raise its per-user limit or its
    budget (409 `budget_not_raised` for a lower one, or for a template
    created without one) or change the validity of the coupons it issues
    from now on. Each change is an
    event. Discount, scope, face value, kind, currency, stacking, refund
    policy and shop are immutable (409); the quota and status have their
    own routes.

    Args:
        sn (str):
        idempotency_key (str | Unset):
        x_request_id (str | Unset):
        body (UpdateTemplate): `PATCH /v1/templates/{sn}`: the template's attributes, and its
            campaign's window, per-user limit and validity (docs/design.md §15).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | TemplateView
     """


    return sync_detailed(
        sn=sn,
client=client,
body=body,
idempotency_key=idempotency_key,
x_request_id=x_request_id,

    ).parsed

async def asyncio_detailed(
    sn: str,
    *,
    client: AuthenticatedClient,
    body: UpdateTemplate,
    idempotency_key: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,

) -> Response[ErrorBody | TemplateView]:
    """ Change a template's name, reminder, rate limit, description or
    eligibility, move its issue window, raise its per-user limit or its
    budget (409 `budget_not_raised` for a lower one, or for a template
    created without one) or change the validity of the coupons it issues
    from now on. Each change is an
    event. Discount, scope, face value, kind, currency, stacking, refund
    policy and shop are immutable (409); the quota and status have their
    own routes.

    Args:
        sn (str):
        idempotency_key (str | Unset):
        x_request_id (str | Unset):
        body (UpdateTemplate): `PATCH /v1/templates/{sn}`: the template's attributes, and its
            campaign's window, per-user limit and validity (docs/design.md §15).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | TemplateView]
     """


    kwargs = _get_kwargs(
        sn=sn,
body=body,
idempotency_key=idempotency_key,
x_request_id=x_request_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    sn: str,
    *,
    client: AuthenticatedClient,
    body: UpdateTemplate,
    idempotency_key: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,

) -> ErrorBody | TemplateView | None:
    """ Change a template's name, reminder, rate limit, description or
    eligibility, move its issue window, raise its per-user limit or its
    budget (409 `budget_not_raised` for a lower one, or for a template
    created without one) or change the validity of the coupons it issues
    from now on. Each change is an
    event. Discount, scope, face value, kind, currency, stacking, refund
    policy and shop are immutable (409); the quota and status have their
    own routes.

    Args:
        sn (str):
        idempotency_key (str | Unset):
        x_request_id (str | Unset):
        body (UpdateTemplate): `PATCH /v1/templates/{sn}`: the template's attributes, and its
            campaign's window, per-user limit and validity (docs/design.md §15).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | TemplateView
     """


    return (await asyncio_detailed(
        sn=sn,
client=client,
body=body,
idempotency_key=idempotency_key,
x_request_id=x_request_id,

    )).parsed
