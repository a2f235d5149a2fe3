from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.package_page import PackagePage
from ...models.package_status import PackageStatus
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    status: PackageStatus | Unset = UNSET,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status.value

    params["status"] = json_status

    params["offset"] = offset

    params["limit"] = limit


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/packages",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | PackagePage | None:
    if response.status_code == 200:
        response_200 = PackagePage.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | PackagePage]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    status: PackageStatus | Unset = UNSET,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> Response[ErrorBody | PackagePage]:
    """ List packages, newest first, with the total count.

    Args:
        status (PackageStatus | Unset): A package's status: created `draft`, then `active`
            (claimed in its issue
            window) or `stopped` (claims and its codes refused), back and forth.
        offset (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PackagePage]
     """


    kwargs = _get_kwargs(
        status=status,
offset=offset,
limit=limit,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    status: PackageStatus | Unset = UNSET,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> ErrorBody | PackagePage | None:
    """ List packages, newest first, with the total count.

    Args:
        status (PackageStatus | Unset): A package's status: created `draft`, then `active`
            (claimed in its issue
            window) or `stopped` (claims and its codes refused), back and forth.
        offset (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PackagePage
     """


    return sync_detailed(
        client=client,
status=status,
offset=offset,
limit=limit,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    status: PackageStatus | Unset = UNSET,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> Response[ErrorBody | PackagePage]:
    """ List packages, newest first, with the total count.

    Args:
        status (PackageStatus | Unset): A package's status: created `draft`, then `active`
            (claimed in its issue
            window) or `stopped` (claims and its codes refused), back and forth.
        offset (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PackagePage]
     """


    kwargs = _get_kwargs(
        status=status,
offset=offset,
limit=limit,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    status: PackageStatus | Unset = UNSET,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> ErrorBody | PackagePage | None:
    """ List packages, newest first, with the total count.

    Args:
        status (PackageStatus | Unset): A package's status: created `draft`, then `active`
            (claimed in its issue
            window) or `stopped` (claims and its codes refused), back and forth.
        offset (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PackagePage
     """


    return (await asyncio_detailed(
        client=client,
status=status,
offset=offset,
limit=limit,

    )).parsed
