from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.claimable_page import ClaimablePage
from ...models.error_body import ErrorBody
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    uid: int | str,
    *,
    channel_id: UUID,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    user_tags: str | Unset = UNSET,
    region: str | Unset = UNSET,
    new_user: bool | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_channel_id = str(channel_id)
    params["channel_id"] = json_channel_id

    params["offset"] = offset

    params["limit"] = limit

    params["user_tags"] = user_tags

    params["region"] = region

    params["new_user"] = new_user


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/users/{uid}/claimable".format(uid=quote(str(uid), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ClaimablePage | ErrorBody | None:
    if response.status_code == 200:
        response_200 = ClaimablePage.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ClaimablePage | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    uid: int | str,
    *,
    client: AuthenticatedClient,
    channel_id: UUID,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    user_tags: str | Unset = UNSET,
    region: str | Unset = UNSET,
    new_user: bool | Unset = UNSET,

) -> Response[ClaimablePage | ErrorBody]:
    """ The active templates this user can still claim from the channel now:
    in their issue window, their coupons not already expired, listing the
    channel (an enabled one), the user eligible as far as the given facts
    and the allow-list tell, under the per-user limit, stock left. Newest
    first, paged; 404 for an unknown channel.

    Args:
        uid (int | str):
        channel_id (UUID):
        offset (int | Unset):
        limit (int | Unset):
        user_tags (str | Unset):
        region (str | Unset):
        new_user (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ClaimablePage | ErrorBody]
     """


    kwargs = _get_kwargs(
        uid=uid,
channel_id=channel_id,
offset=offset,
limit=limit,
user_tags=user_tags,
region=region,
new_user=new_user,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    uid: int | str,
    *,
    client: AuthenticatedClient,
    channel_id: UUID,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    user_tags: str | Unset = UNSET,
    region: str | Unset = UNSET,
    new_user: bool | Unset = UNSET,

) -> ClaimablePage | ErrorBody | None:
    """ The active templates this user can still claim from the channel now:
    in their issue window, their coupons not already expired, listing the
    channel (an enabled one), the user eligible as far as the given facts
    and the allow-list tell, under the per-user limit, stock left. Newest
    first, paged; 404 for an unknown channel.

    Args:
        uid (int | str):
        channel_id (UUID):
        offset (int | Unset):
        limit (int | Unset):
        user_tags (str | Unset):
        region (str | Unset):
        new_user (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ClaimablePage | ErrorBody
     """


    return sync_detailed(
        uid=uid,
client=client,
channel_id=channel_id,
offset=offset,
limit=limit,
user_tags=user_tags,
region=region,
new_user=new_user,

    ).parsed

async def asyncio_detailed(
    uid: int | str,
    *,
    client: AuthenticatedClient,
    channel_id: UUID,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    user_tags: str | Unset = UNSET,
    region: str | Unset = UNSET,
    new_user: bool | Unset = UNSET,

) -> Response[ClaimablePage | ErrorBody]:
    """ The active templates this user can still claim from the channel now:
    in their issue window, their coupons not already expired, listing the
    channel (an enabled one), the user eligible as far as the given facts
    and the allow-list tell, under the per-user limit, stock left. Newest
    first, paged; 404 for an unknown channel.

    Args:
        uid (int | str):
        channel_id (UUID):
        offset (int | Unset):
        limit (int | Unset):
        user_tags (str | Unset):
        region (str | Unset):
        new_user (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ClaimablePage | ErrorBody]
     """


    kwargs = _get_kwargs(
        uid=uid,
channel_id=channel_id,
offset=offset,
limit=limit,
user_tags=user_tags,
region=region,
new_user=new_user,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    uid: int | str,
    *,
    client: AuthenticatedClient,
    channel_id: UUID,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    user_tags: str | Unset = UNSET,
    region: str | Unset = UNSET,
    new_user: bool | Unset = UNSET,

) -> ClaimablePage | ErrorBody | None:
    """ The active templates this user can still claim from the channel now:
    in their issue window, their coupons not already expired, listing the
    channel (an enabled one), the user eligible as far as the given facts
    and the allow-list tell, under the per-user limit, stock left. Newest
    first, paged; 404 for an unknown channel.

    Args:
        uid (int | str):
        channel_id (UUID):
        offset (int | Unset):
        limit (int | Unset):
        user_tags (str | Unset):
        region (str | Unset):
        new_user (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ClaimablePage | ErrorBody
     """


    return (await asyncio_detailed(
        uid=uid,
client=client,
channel_id=channel_id,
offset=offset,
limit=limit,
user_tags=user_tags,
region=region,
new_user=new_user,

    )).parsed
