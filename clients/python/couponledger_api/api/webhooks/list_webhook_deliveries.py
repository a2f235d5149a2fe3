from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.delivery_list import DeliveryList
from ...models.delivery_status import DeliveryStatus
from ...models.error_body import ErrorBody
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    id: UUID,
    *,
    status: DeliveryStatus | Unset = UNSET,
    before: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status.value

    params["status"] = json_status

    params["before"] = before

    params["limit"] = limit


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/webhooks/{id}/deliveries".format(id=quote(str(id), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> DeliveryList | ErrorBody | None:
    if response.status_code == 200:
        response_200 = DeliveryList.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[DeliveryList | ErrorBody]:
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
    status: DeliveryStatus | Unset = UNSET,
    before: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> Response[DeliveryList | ErrorBody]:
    """ An endpoint's deliveries, newest first: each event owed, its attempts,
    the receiver's last answer.

    Args:
        id (UUID):
        status (DeliveryStatus | Unset): A delivery's state (`webhook_deliveries.status`).
        before (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeliveryList | ErrorBody]
     """


    kwargs = _get_kwargs(
        id=id,
status=status,
before=before,
limit=limit,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    id: UUID,
    *,
    client: AuthenticatedClient,
    status: DeliveryStatus | Unset = UNSET,
    before: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> DeliveryList | ErrorBody | None:
    """ An endpoint's deliveries, newest first: each event owed, its attempts,
    the receiver's last answer.

    Args:
        id (UUID):
        status (DeliveryStatus | Unset): A delivery's state (`webhook_deliveries.status`).
        before (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeliveryList | ErrorBody
     """


    return sync_detailed(
        id=id,
client=client,
status=status,
before=before,
limit=limit,

    ).parsed

async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    status: DeliveryStatus | Unset = UNSET,
    before: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> Response[DeliveryList | ErrorBody]:
    """ An endpoint's deliveries, newest first: each event owed, its attempts,
    the receiver's last answer.

    Args:
        id (UUID):
        status (DeliveryStatus | Unset): A delivery's state (`webhook_deliveries.status`).
        before (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeliveryList | ErrorBody]
     """


    kwargs = _get_kwargs(
        id=id,
status=status,
before=before,
limit=limit,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient,
    status: DeliveryStatus | Unset = UNSET,
    before: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> DeliveryList | ErrorBody | None:
    """ An endpoint's deliveries, newest first: each event owed, its attempts,
    the receiver's last answer.

    Args:
        id (UUID):
        status (DeliveryStatus | Unset): A delivery's state (`webhook_deliveries.status`).
        before (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeliveryList | ErrorBody
     """


    return (await asyncio_detailed(
        id=id,
client=client,
status=status,
before=before,
limit=limit,

    )).parsed
