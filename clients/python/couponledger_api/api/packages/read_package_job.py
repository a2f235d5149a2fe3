from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.package_job_view import PackageJobView
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    id: UUID,
    *,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    x_channel_id: None | Unset | UUID = UNSET,
    x_timestamp: int | None | Unset = UNSET,
    x_nonce: None | str | Unset = UNSET,
    x_signature: None | str | Unset = UNSET,

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



    

    params: dict[str, Any] = {}

    params["offset"] = offset

    params["limit"] = limit


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/package-jobs/{id}".format(id=quote(str(id), safe=""),),
        "params": params,
    }


    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | PackageJobView | None:
    if response.status_code == 200:
        response_200 = PackageJobView.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | PackageJobView]:
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
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    x_channel_id: None | Unset | UUID = UNSET,
    x_timestamp: int | None | Unset = UNSET,
    x_nonce: None | str | Unset = UNSET,
    x_signature: None | str | Unset = UNSET,

) -> Response[ErrorBody | PackageJobView]:
    """ A large package's claim: queued, done (with its coupons), refused (with
    the answer the claim would have had at once: 409, 410, 422...) or
    failed. As the service or an operator (bearer token: any job), or as
    the channel that asked (signed like a claim, over an empty body: its
    own jobs; another's is 404).

    Args:
        id (UUID):
        offset (int | Unset):
        limit (int | Unset):
        x_channel_id (None | Unset | UUID):
        x_timestamp (int | None | Unset):
        x_nonce (None | str | Unset):
        x_signature (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PackageJobView]
     """


    kwargs = _get_kwargs(
        id=id,
offset=offset,
limit=limit,
x_channel_id=x_channel_id,
x_timestamp=x_timestamp,
x_nonce=x_nonce,
x_signature=x_signature,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    id: UUID,
    *,
    client: AuthenticatedClient,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    x_channel_id: None | Unset | UUID = UNSET,
    x_timestamp: int | None | Unset = UNSET,
    x_nonce: None | str | Unset = UNSET,
    x_signature: None | str | Unset = UNSET,

) -> ErrorBody | PackageJobView | None:
    """ A large package's claim: queued, done (with its coupons), refused (with
    the answer the claim would have had at once: 409, 410, 422...) or
    failed. As the service or an operator (bearer token: any job), or as
    the channel that asked (signed like a claim, over an empty body: its
    own jobs; another's is 404).

    Args:
        id (UUID):
        offset (int | Unset):
        limit (int | Unset):
        x_channel_id (None | Unset | UUID):
        x_timestamp (int | None | Unset):
        x_nonce (None | str | Unset):
        x_signature (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PackageJobView
     """


    return sync_detailed(
        id=id,
client=client,
offset=offset,
limit=limit,
x_channel_id=x_channel_id,
x_timestamp=x_timestamp,
x_nonce=x_nonce,
x_signature=x_signature,

    ).parsed

async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    x_channel_id: None | Unset | UUID = UNSET,
    x_timestamp: int | None | Unset = UNSET,
    x_nonce: None | str | Unset = UNSET,
    x_signature: None | str | Unset = UNSET,

) -> Response[ErrorBody | PackageJobView]:
    """ A large package's claim: queued, done (with its coupons), refused (with
    the answer the claim would have had at once: 409, 410, 422...) or
    failed. As the service or an operator (bearer token: any job), or as
    the channel that asked (signed like a claim, over an empty body: its
    own jobs; another's is 404).

    Args:
        id (UUID):
        offset (int | Unset):
        limit (int | Unset):
        x_channel_id (None | Unset | UUID):
        x_timestamp (int | None | Unset):
        x_nonce (None | str | Unset):
        x_signature (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PackageJobView]
     """


    kwargs = _get_kwargs(
        id=id,
offset=offset,
limit=limit,
x_channel_id=x_channel_id,
x_timestamp=x_timestamp,
x_nonce=x_nonce,
x_signature=x_signature,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    x_channel_id: None | Unset | UUID = UNSET,
    x_timestamp: int | None | Unset = UNSET,
    x_nonce: None | str | Unset = UNSET,
    x_signature: None | str | Unset = UNSET,

) -> ErrorBody | PackageJobView | None:
    """ A large package's claim: queued, done (with its coupons), refused (with
    the answer the claim would have had at once: 409, 410, 422...) or
    failed. As the service or an operator (bearer token: any job), or as
    the channel that asked (signed like a claim, over an empty body: its
    own jobs; another's is 404).

    Args:
        id (UUID):
        offset (int | Unset):
        limit (int | Unset):
        x_channel_id (None | Unset | UUID):
        x_timestamp (int | None | Unset):
        x_nonce (None | str | Unset):
        x_signature (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PackageJobView
     """


    return (await asyncio_detailed(
        id=id,
client=client,
offset=offset,
limit=limit,
x_channel_id=x_channel_id,
x_timestamp=x_timestamp,
x_nonce=x_nonce,
x_signature=x_signature,

    )).parsed
