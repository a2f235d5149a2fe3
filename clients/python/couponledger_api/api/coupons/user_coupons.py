from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.coupon_status import CouponStatus
from ...models.error_body import ErrorBody
from ...models.user_coupons_order import UserCouponsOrder
from ...models.user_coupons_sort import UserCouponsSort
from ...models.wallet_page import WalletPage
from ...types import UNSET, Unset
from typing import cast
import datetime



def _get_kwargs(
    uid: int | str,
    *,
    status: CouponStatus | Unset = UNSET,
    usable_at: datetime.datetime | Unset = UNSET,
    expiring_within_days: int | Unset = UNSET,
    sort: UserCouponsSort | Unset = UNSET,
    order: UserCouponsOrder | Unset = UNSET,
    after: str | Unset = UNSET,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    include_archived: bool | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status.value

    params["status"] = json_status

    json_usable_at: str | Unset = UNSET
    if not isinstance(usable_at, Unset):
        json_usable_at = usable_at.isoformat()
    params["usable_at"] = json_usable_at

    params["expiring_within_days"] = expiring_within_days

    json_sort: str | Unset = UNSET
    if not isinstance(sort, Unset):
        json_sort = sort.value

    params["sort"] = json_sort

    json_order: str | Unset = UNSET
    if not isinstance(order, Unset):
        json_order = order.value

    params["order"] = json_order

    params["after"] = after

    params["offset"] = offset

    params["limit"] = limit

    params["include_archived"] = include_archived


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/users/{uid}/coupons".format(uid=quote(str(uid), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | WalletPage | None:
    if response.status_code == 200:
        response_200 = WalletPage.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | WalletPage]:
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
    status: CouponStatus | Unset = UNSET,
    usable_at: datetime.datetime | Unset = UNSET,
    expiring_within_days: int | Unset = UNSET,
    sort: UserCouponsSort | Unset = UNSET,
    order: UserCouponsOrder | Unset = UNSET,
    after: str | Unset = UNSET,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    include_archived: bool | Unset = UNSET,

) -> Response[ErrorBody | WalletPage]:
    """ A user's wallet: their coupons, filtered and sorted as asked (oldest
    first by default), keyset-paged by `after`/`next_after`, with the
    count of all that match; each coupon embeds its template's public `terms`.

    Args:
        uid (int | str):
        status (CouponStatus | Unset): A coupon's status; the names are those of the contract (and
            the rows').
        usable_at (datetime.datetime | Unset):
        expiring_within_days (int | Unset):
        sort (UserCouponsSort | Unset):
        order (UserCouponsOrder | Unset):
        after (str | Unset):
        offset (int | Unset):
        limit (int | Unset):
        include_archived (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | WalletPage]
     """


    kwargs = _get_kwargs(
        uid=uid,
status=status,
usable_at=usable_at,
expiring_within_days=expiring_within_days,
sort=sort,
order=order,
after=after,
offset=offset,
limit=limit,
include_archived=include_archived,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    uid: int | str,
    *,
    client: AuthenticatedClient,
    status: CouponStatus | Unset = UNSET,
    usable_at: datetime.datetime | Unset = UNSET,
    expiring_within_days: int | Unset = UNSET,
    sort: UserCouponsSort | Unset = UNSET,
    order: UserCouponsOrder | Unset = UNSET,
    after: str | Unset = UNSET,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    include_archived: bool | Unset = UNSET,

) -> ErrorBody | WalletPage | None:
    """ A user's wallet: their coupons, filtered and sorted as asked (oldest
    first by default), keyset-paged by `after`/`next_after`, with the
    count of all that match; each coupon embeds its template's public `terms`.

    Args:
        uid (int | str):
        status (CouponStatus | Unset): A coupon's status; the names are those of the contract (and
            the rows').
        usable_at (datetime.datetime | Unset):
        expiring_within_days (int | Unset):
        sort (UserCouponsSort | Unset):
        order (UserCouponsOrder | Unset):
        after (str | Unset):
        offset (int | Unset):
        limit (int | Unset):
        include_archived (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | WalletPage
     """


    return sync_detailed(
        uid=uid,
client=client,
status=status,
usable_at=usable_at,
expiring_within_days=expiring_within_days,
sort=sort,
order=order,
after=after,
offset=offset,
limit=limit,
include_archived=include_archived,

    ).parsed

async def asyncio_detailed(
    uid: int | str,
    *,
    client: AuthenticatedClient,
    status: CouponStatus | Unset = UNSET,
    usable_at: datetime.datetime | Unset = UNSET,
    expiring_within_days: int | Unset = UNSET,
    sort: UserCouponsSort | Unset = UNSET,
    order: UserCouponsOrder | Unset = UNSET,
    after: str | Unset = UNSET,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    include_archived: bool | Unset = UNSET,

) -> Response[ErrorBody | WalletPage]:
    """ A user's wallet: their coupons, filtered and sorted as asked (oldest
    first by default), keyset-paged by `after`/`next_after`, with the
    count of all that match; each coupon embeds its template's public `terms`.

    Args:
        uid (int | str):
        status (CouponStatus | Unset): A coupon's status; the names are those of the contract (and
            the rows').
        usable_at (datetime.datetime | Unset):
        expiring_within_days (int | Unset):
        sort (UserCouponsSort | Unset):
        order (UserCouponsOrder | Unset):
        after (str | Unset):
        offset (int | Unset):
        limit (int | Unset):
        include_archived (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | WalletPage]
     """


    kwargs = _get_kwargs(
        uid=uid,
status=status,
usable_at=usable_at,
expiring_within_days=expiring_within_days,
sort=sort,
order=order,
after=after,
offset=offset,
limit=limit,
include_archived=include_archived,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    uid: int | str,
    *,
    client: AuthenticatedClient,
    status: CouponStatus | Unset = UNSET,
    usable_at: datetime.datetime | Unset = UNSET,
    expiring_within_days: int | Unset = UNSET,
    sort: UserCouponsSort | Unset = UNSET,
    order: UserCouponsOrder | Unset = UNSET,
    after: str | Unset = UNSET,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    include_archived: bool | Unset = UNSET,

) -> ErrorBody | WalletPage | None:
    """ A user's wallet: their coupons, filtered and sorted as asked (oldest
    first by default), keyset-paged by `after`/`next_after`, with the
    count of all that match; each coupon embeds its template's public `terms`.

    Args:
        uid (int | str):
        status (CouponStatus | Unset): A coupon's status; the names are those of the contract (and
            the rows').
        usable_at (datetime.datetime | Unset):
        expiring_within_days (int | Unset):
        sort (UserCouponsSort | Unset):
        order (UserCouponsOrder | Unset):
        after (str | Unset):
        offset (int | Unset):
        limit (int | Unset):
        include_archived (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | WalletPage
     """


    return (await asyncio_detailed(
        uid=uid,
client=client,
status=status,
usable_at=usable_at,
expiring_within_days=expiring_within_days,
sort=sort,
order=order,
after=after,
offset=offset,
limit=limit,
include_archived=include_archived,

    )).parsed
