from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.rotate_webhook_secret import RotateWebhookSecret
from ...models.webhook_secret import WebhookSecret
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    id: UUID,
    *,
    body: RotateWebhookSecret,
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
        "url": "/v1/webhooks/{id}/secret".format(id=quote(str(id), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | WebhookSecret | None:
    if response.status_code == 200:
        response_200 = WebhookSecret.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | WebhookSecret]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: RotateWebhookSecret,
    idempotency_key: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,

) -> Response[ErrorBody | WebhookSecret]:
    """ A new signing secret; during the overlap each delivery carries a
    `v1=` signature by each secret.

    Args:
        id (UUID):
        idempotency_key (str | Unset):
        x_request_id (str | Unset):
        body (RotateWebhookSecret):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | WebhookSecret]
     """


    kwargs = _get_kwargs(
        id=id,
body=body,
idempotency_key=idempotency_key,
x_request_id=x_request_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: RotateWebhookSecret,
    idempotency_key: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,

) -> ErrorBody | WebhookSecret | None:
    """ A new signing secret; during the overlap each delivery carries a
    `v1=` signature by each secret.

    Args:
        id (UUID):
        idempotency_key (str | Unset):
        x_request_id (str | Unset):
        body (RotateWebhookSecret):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | WebhookSecret
     """


    return sync_detailed(
        id=id,
client=client,
body=body,
idempotency_key=idempotency_key,
x_request_id=x_request_id,

    ).parsed

async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: RotateWebhookSecret,
    idempotency_key: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,

) -> Response[ErrorBody | WebhookSecret]:
    """ A new signing secret; during the overlap each delivery carries a
    `v1=` signature by each secret.

    Args:
        id (UUID):
        idempotency_key (str | Unset):
        x_request_id (str | Unset):
        body (RotateWebhookSecret):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | WebhookSecret]
     """


    kwargs = _get_kwargs(
        id=id,
body=body,
idempotency_key=idempotency_key,
x_request_id=x_request_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient,
    body: RotateWebhookSecret,
    idempotency_key: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,

) -> ErrorBody | WebhookSecret | None:
    """ A new signing secret; during the overlap each delivery carries a
    `v1=` signature by each secret.

    Args:
        id (UUID):
        idempotency_key (str | Unset):
        x_request_id (str | Unset):
        body (RotateWebhookSecret):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | WebhookSecret
     """


    return (await asyncio_detailed(
        id=id,
client=client,
body=body,
idempotency_key=idempotency_key,
x_request_id=x_request_id,

    )).parsed
