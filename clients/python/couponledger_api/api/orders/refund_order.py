from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.refund_answer import RefundAnswer
from ...models.refund_body import RefundBody
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    order_id: str,
    *,
    body: RefundBody,
    idempotency_key: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    if not isinstance(x_request_id, Unset):
        headers["X-Request-Id"] = x_request_id



    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/orders/{order_id}/refunds".format(order_id=quote(str(order_id), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | RefundAnswer | None:
    if response.status_code == 200:
        response_200 = RefundAnswer.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | RefundAnswer]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    order_id: str,
    *,
    client: AuthenticatedClient,
    body: RefundBody,
    idempotency_key: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,

) -> Response[ErrorBody | RefundAnswer]:
    """ Refund units of a confirmed order's lines, partly or fully.

    Args:
        order_id (str):
        idempotency_key (str | Unset):
        x_request_id (str | Unset):
        body (RefundBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | RefundAnswer]
     """


    kwargs = _get_kwargs(
        order_id=order_id,
body=body,
idempotency_key=idempotency_key,
x_request_id=x_request_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    order_id: str,
    *,
    client: AuthenticatedClient,
    body: RefundBody,
    idempotency_key: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,

) -> ErrorBody | RefundAnswer | None:
    """ Refund units of a confirmed order's lines, partly or fully.

    Args:
        order_id (str):
        idempotency_key (str | Unset):
        x_request_id (str | Unset):
        body (RefundBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | RefundAnswer
     """


    return sync_detailed(
        order_id=order_id,
client=client,
body=body,
idempotency_key=idempotency_key,
x_request_id=x_request_id,

    ).parsed

async def asyncio_detailed(
    order_id: str,
    *,
    client: AuthenticatedClient,
    body: RefundBody,
    idempotency_key: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,

) -> Response[ErrorBody | RefundAnswer]:
    """ Refund units of a confirmed order's lines, partly or fully.

    Args:
        order_id (str):
        idempotency_key (str | Unset):
        x_request_id (str | Unset):
        body (RefundBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | RefundAnswer]
     """


    kwargs = _get_kwargs(
        order_id=order_id,
body=body,
idempotency_key=idempotency_key,
x_request_id=x_request_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    order_id: str,
    *,
    client: AuthenticatedClient,
    body: RefundBody,
    idempotency_key: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,

) -> ErrorBody | RefundAnswer | None:
    """ Refund units of a confirmed order's lines, partly or fully.

    Args:
        order_id (str):
        idempotency_key (str | Unset):
        x_request_id (str | Unset):
        body (RefundBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | RefundAnswer
     """


    return (await asyncio_detailed(
        order_id=order_id,
client=client,
body=body,
idempotency_key=idempotency_key,
x_request_id=x_request_id,

    )).parsed
