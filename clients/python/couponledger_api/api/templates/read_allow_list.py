from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.allow_list_view import AllowListView
from ...models.error_body import ErrorBody
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    sn: str,
    *,
    user_id: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["user_id"] = user_id


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/templates/{sn}/allow-list".format(sn=quote(str(sn), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> AllowListView | ErrorBody | None:
    if response.status_code == 200:
        response_200 = AllowListView.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[AllowListView | ErrorBody]:
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
    user_id: str | Unset = UNSET,

) -> Response[AllowListView | ErrorBody]:
    """ The template's allow-list: whether it applies, how many users it holds,
    the files that changed it (newest first, at most 20) and, with
    `?user_id=`, whether that user is on it. Never the list itself.

    Args:
        sn (str):
        user_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AllowListView | ErrorBody]
     """


    kwargs = _get_kwargs(
        sn=sn,
user_id=user_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    sn: str,
    *,
    client: AuthenticatedClient,
    user_id: str | Unset = UNSET,

) -> AllowListView | ErrorBody | None:
    """ The template's allow-list: whether it applies, how many users it holds,
    the files that changed it (newest first, at most 20) and, with
    `?user_id=`, whether that user is on it. Never the list itself.

    Args:
        sn (str):
        user_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AllowListView | ErrorBody
     """


    return sync_detailed(
        sn=sn,
client=client,
user_id=user_id,

    ).parsed

async def asyncio_detailed(
    sn: str,
    *,
    client: AuthenticatedClient,
    user_id: str | Unset = UNSET,

) -> Response[AllowListView | ErrorBody]:
    """ The template's allow-list: whether it applies, how many users it holds,
    the files that changed it (newest first, at most 20) and, with
    `?user_id=`, whether that user is on it. Never the list itself.

    Args:
        sn (str):
        user_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AllowListView | ErrorBody]
     """


    kwargs = _get_kwargs(
        sn=sn,
user_id=user_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    sn: str,
    *,
    client: AuthenticatedClient,
    user_id: str | Unset = UNSET,

) -> AllowListView | ErrorBody | None:
    """ The template's allow-list: whether it applies, how many users it holds,
    the files that changed it (newest first, at most 20) and, with
    `?user_id=`, whether that user is on it. Never the list itself.

    Args:
        sn (str):
        user_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AllowListView | ErrorBody
     """


    return (await asyncio_detailed(
        sn=sn,
client=client,
user_id=user_id,

    )).parsed
