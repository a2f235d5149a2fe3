from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.package_job_view import PackageJobView
from ...models.redeem import Redeem
from ...models.redemption import Redemption
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    *,
    body: Redeem,
    x_channel_id: None | Unset | UUID = UNSET,
    x_timestamp: int | None | Unset = UNSET,
    x_nonce: None | str | Unset = UNSET,
    x_signature: None | str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_channel_id, Unset):
        headers["X-Channel-Id"] = x_channel_id

    if not isinstance(x_timestamp, Unset):
        headers["X-Timestamp"] = x_timestamp

    if not isinstance(x_nonce, Unset):
        headers["X-Nonce"] = x_nonce

    if not isinstance(x_signature, Unset):
        headers["X-Signature"] = x_signature

    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    if not isinstance(x_request_id, Unset):
        headers["X-Request-Id"] = x_request_id



    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/redemptions",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | PackageJobView | Redemption | None:
    if response.status_code == 201:
        response_201 = Redemption.from_dict(response.json())



        return response_201

    if response.status_code == 202:
        response_202 = PackageJobView.from_dict(response.json())



        return response_202

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

    if response.status_code == 410:
        response_410 = ErrorBody.from_dict(response.json())



        return response_410

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | PackageJobView | Redemption]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: Redeem,
    x_channel_id: None | Unset | UUID = UNSET,
    x_timestamp: int | None | Unset = UNSET,
    x_nonce: None | str | Unset = UNSET,
    x_signature: None | str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,

) -> Response[ErrorBody | PackageJobView | Redemption]:
    """ Redeem a code for its template's coupon or its package's coupons: as a
    service (bearer token; the end user's address may come as
    `X-Forwarded-For`) or as a channel (signed like a claim, docs/design.md §6).

    Args:
        x_channel_id (None | Unset | UUID):
        x_timestamp (int | None | Unset):
        x_nonce (None | str | Unset):
        x_signature (None | str | Unset):
        idempotency_key (str | Unset):
        x_request_id (str | Unset):
        body (Redeem):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PackageJobView | Redemption]
     """


    kwargs = _get_kwargs(
        body=body,
x_channel_id=x_channel_id,
x_timestamp=x_timestamp,
x_nonce=x_nonce,
x_signature=x_signature,
idempotency_key=idempotency_key,
x_request_id=x_request_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    body: Redeem,
    x_channel_id: None | Unset | UUID = UNSET,
    x_timestamp: int | None | Unset = UNSET,
    x_nonce: None | str | Unset = UNSET,
    x_signature: None | str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,

) -> ErrorBody | PackageJobView | Redemption | None:
    """ Redeem a code for its template's coupon or its package's coupons: as a
    service (bearer token; the end user's address may come as
    `X-Forwarded-For`) or as a channel (signed like a claim, docs/design.md §6).

    Args:
        x_channel_id (None | Unset | UUID):
        x_timestamp (int | None | Unset):
        x_nonce (None | str | Unset):
        x_signature (None | str | Unset):
        idempotency_key (str | Unset):
        x_request_id (str | Unset):
        body (Redeem):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PackageJobView | Redemption
     """


    return sync_detailed(
        client=client,
body=body,
x_channel_id=x_channel_id,
x_timestamp=x_timestamp,
x_nonce=x_nonce,
x_signature=x_signature,
idempotency_key=idempotency_key,
x_request_id=x_request_id,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: Redeem,
    x_channel_id: None | Unset | UUID = UNSET,
    x_timestamp: int | None | Unset = UNSET,
    x_nonce: None | str | Unset = UNSET,
    x_signature: None | str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,

) -> Response[ErrorBody | PackageJobView | Redemption]:
    """ Redeem a code for its template's coupon or its package's coupons: as a
    service (bearer token; the end user's address may come as
    `X-Forwarded-For`) or as a channel (signed like a claim, docs/design.md §6).

    Args:
        x_channel_id (None | Unset | UUID):
        x_timestamp (int | None | Unset):
        x_nonce (None | str | Unset):
        x_signature (None | str | Unset):
        idempotency_key (str | Unset):
        x_request_id (str | Unset):
        body (Redeem):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PackageJobView | Redemption]
     """


    kwargs = _get_kwargs(
        body=body,
x_channel_id=x_channel_id,
x_timestamp=x_timestamp,
x_nonce=x_nonce,
x_signature=x_signature,
idempotency_key=idempotency_key,
x_request_id=x_request_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    body: Redeem,
    x_channel_id: None | Unset | UUID = UNSET,
    x_timestamp: int | None | Unset = UNSET,
    x_nonce: None | str | Unset = UNSET,
    x_signature: None | str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,

) -> ErrorBody | PackageJobView | Redemption | None:
    """ Redeem a code for its template's coupon or its package's coupons: as a
    service (bearer token; the end user's address may come as
    `X-Forwarded-For`) or as a channel (signed like a claim, docs/design.md §6).

    Args:
        x_channel_id (None | Unset | UUID):
        x_timestamp (int | None | Unset):
        x_nonce (None | str | Unset):
        x_signature (None | str | Unset):
        idempotency_key (str | Unset):
        x_request_id (str | Unset):
        body (Redeem):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PackageJobView | Redemption
     """


    return (await asyncio_detailed(
        client=client,
body=body,
x_channel_id=x_channel_id,
x_timestamp=x_timestamp,
x_nonce=x_nonce,
x_signature=x_signature,
idempotency_key=idempotency_key,
x_request_id=x_request_id,

    )).parsed
