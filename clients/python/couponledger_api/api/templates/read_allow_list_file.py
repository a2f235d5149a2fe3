from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.allow_list_file_view import AllowListFileView
from ...models.error_body import ErrorBody
from typing import cast
from uuid import UUID



def _get_kwargs(
    sn: str,
    id: UUID,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/templates/{sn}/allow-list/files/{id}".format(sn=quote(str(sn), safe=""),id=quote(str(id), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> AllowListFileView | ErrorBody | None:
    if response.status_code == 200:
        response_200 = AllowListFileView.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[AllowListFileView | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    sn: str,
    id: UUID,
    *,
    client: AuthenticatedClient,

) -> Response[AllowListFileView | ErrorBody]:
    """ One allow-list file: what it did, and its first invalid lines (at most
    1,000) with their 1-based number and reason.

    Args:
        sn (str):
        id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AllowListFileView | ErrorBody]
     """


    kwargs = _get_kwargs(
        sn=sn,
id=id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    sn: str,
    id: UUID,
    *,
    client: AuthenticatedClient,

) -> AllowListFileView | ErrorBody | None:
    """ One allow-list file: what it did, and its first invalid lines (at most
    1,000) with their 1-based number and reason.

    Args:
        sn (str):
        id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AllowListFileView | ErrorBody
     """


    return sync_detailed(
        sn=sn,
id=id,
client=client,

    ).parsed

async def asyncio_detailed(
    sn: str,
    id: UUID,
    *,
    client: AuthenticatedClient,

) -> Response[AllowListFileView | ErrorBody]:
    """ One allow-list file: what it did, and its first invalid lines (at most
    1,000) with their 1-based number and reason.

    Args:
        sn (str):
        id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AllowListFileView | ErrorBody]
     """


    kwargs = _get_kwargs(
        sn=sn,
id=id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    sn: str,
    id: UUID,
    *,
    client: AuthenticatedClient,

) -> AllowListFileView | ErrorBody | None:
    """ One allow-list file: what it did, and its first invalid lines (at most
    1,000) with their 1-based number and reason.

    Args:
        sn (str):
        id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AllowListFileView | ErrorBody
     """


    return (await asyncio_detailed(
        sn=sn,
id=id,
client=client,

    )).parsed
