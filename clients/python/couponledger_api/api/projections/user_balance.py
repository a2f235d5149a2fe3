from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.user_balance import UserBalance
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    uid: int | str,
    *,
    expiring_within_days: int | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["expiring_within_days"] = expiring_within_days


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/users/{uid}/balance".format(uid=quote(str(uid), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | UserBalance | None:
    if response.status_code == 200:
        response_200 = UserBalance.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | UserBalance]:
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
    expiring_within_days: int | Unset = UNSET,

) -> Response[ErrorBody | UserBalance]:
    """ A user's coupons by status: count and face value (projection
    `balances`), and the unused ones expiring within the days asked.

    Args:
        uid (int | str):
        expiring_within_days (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | UserBalance]
     """


    kwargs = _get_kwargs(
        uid=uid,
expiring_within_days=expiring_within_days,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    uid: int | str,
    *,
    client: AuthenticatedClient,
    expiring_within_days: int | Unset = UNSET,

) -> ErrorBody | UserBalance | None:
    """ A user's coupons by status: count and face value (projection
    `balances`), and the unused ones expiring within the days asked.

    Args:
        uid (int | str):
        expiring_within_days (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | UserBalance
     """


    return sync_detailed(
        uid=uid,
client=client,
expiring_within_days=expiring_within_days,

    ).parsed

async def asyncio_detailed(
    uid: int | str,
    *,
    client: AuthenticatedClient,
    expiring_within_days: int | Unset = UNSET,

) -> Response[ErrorBody | UserBalance]:
    """ A user's coupons by status: count and face value (projection
    `balances`), and the unused ones expiring within the days asked.

    Args:
        uid (int | str):
        expiring_within_days (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | UserBalance]
     """


    kwargs = _get_kwargs(
        uid=uid,
expiring_within_days=expiring_within_days,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    uid: int | str,
    *,
    client: AuthenticatedClient,
    expiring_within_days: int | Unset = UNSET,

) -> ErrorBody | UserBalance | None:
    """ A user's coupons by status: count and face value (projection
    `balances`), and the unused ones expiring within the days asked.

    Args:
        uid (int | str):
        expiring_within_days (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | UserBalance
     """


    return (await asyncio_detailed(
        uid=uid,
client=client,
expiring_within_days=expiring_within_days,

    )).parsed
