from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.order_record import OrderRecord
from typing import cast



def _get_kwargs(
    order_id: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/orders/{order_id}".format(order_id=quote(str(order_id), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | OrderRecord | None:
    if response.status_code == 200:
        response_200 = OrderRecord.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | OrderRecord]:
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

) -> Response[ErrorBody | OrderRecord]:
    """ An order's record: status, when it was locked and settled, the order as
    locked, each coupon with its share of each line, the payable, and every
    refund as answered; coupons archived since are found too.

    Args:
        order_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | OrderRecord]
     """


    kwargs = _get_kwargs(
        order_id=order_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    order_id: str,
    *,
    client: AuthenticatedClient,

) -> ErrorBody | OrderRecord | None:
    """ An order's record: status, when it was locked and settled, the order as
    locked, each coupon with its share of each line, the payable, and every
    refund as answered; coupons archived since are found too.

    Args:
        order_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | OrderRecord
     """


    return sync_detailed(
        order_id=order_id,
client=client,

    ).parsed

async def asyncio_detailed(
    order_id: str,
    *,
    client: AuthenticatedClient,

) -> Response[ErrorBody | OrderRecord]:
    """ An order's record: status, when it was locked and settled, the order as
    locked, each coupon with its share of each line, the payable, and every
    refund as answered; coupons archived since are found too.

    Args:
        order_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | OrderRecord]
     """


    kwargs = _get_kwargs(
        order_id=order_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    order_id: str,
    *,
    client: AuthenticatedClient,

) -> ErrorBody | OrderRecord | None:
    """ An order's record: status, when it was locked and settled, the order as
    locked, each coupon with its share of each line, the payable, and every
    refund as answered; coupons archived since are found too.

    Args:
        order_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | OrderRecord
     """


    return (await asyncio_detailed(
        order_id=order_id,
client=client,

    )).parsed
