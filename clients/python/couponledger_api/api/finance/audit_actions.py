from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.action_page import ActionPage
from ...models.error_body import ErrorBody
from ...types import UNSET, Unset
from typing import cast
import datetime



def _get_kwargs(
    *,
    operator: str | Unset = UNSET,
    api_key: str | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["operator"] = operator

    params["api_key"] = api_key

    json_from_: str | Unset = UNSET
    if not isinstance(from_, Unset):
        json_from_ = from_.isoformat()
    params["from"] = json_from_

    json_to: str | Unset = UNSET
    if not isinstance(to, Unset):
        json_to = to.isoformat()
    params["to"] = json_to

    params["after"] = after

    params["limit"] = limit


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/audit/actions",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ActionPage | ErrorBody | None:
    if response.status_code == 200:
        response_200 = ActionPage.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ActionPage | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    operator: str | Unset = UNSET,
    api_key: str | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> Response[ActionPage | ErrorBody]:
    """ Who did what: the events of operators' and apps' requests.

    Args:
        operator (str | Unset):
        api_key (str | Unset):
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        after (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ActionPage | ErrorBody]
     """


    kwargs = _get_kwargs(
        operator=operator,
api_key=api_key,
from_=from_,
to=to,
after=after,
limit=limit,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    operator: str | Unset = UNSET,
    api_key: str | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> ActionPage | ErrorBody | None:
    """ Who did what: the events of operators' and apps' requests.

    Args:
        operator (str | Unset):
        api_key (str | Unset):
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        after (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ActionPage | ErrorBody
     """


    return sync_detailed(
        client=client,
operator=operator,
api_key=api_key,
from_=from_,
to=to,
after=after,
limit=limit,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    operator: str | Unset = UNSET,
    api_key: str | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> Response[ActionPage | ErrorBody]:
    """ Who did what: the events of operators' and apps' requests.

    Args:
        operator (str | Unset):
        api_key (str | Unset):
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        after (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ActionPage | ErrorBody]
     """


    kwargs = _get_kwargs(
        operator=operator,
api_key=api_key,
from_=from_,
to=to,
after=after,
limit=limit,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    operator: str | Unset = UNSET,
    api_key: str | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> ActionPage | ErrorBody | None:
    """ Who did what: the events of operators' and apps' requests.

    Args:
        operator (str | Unset):
        api_key (str | Unset):
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        after (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ActionPage | ErrorBody
     """


    return (await asyncio_detailed(
        client=client,
operator=operator,
api_key=api_key,
from_=from_,
to=to,
after=after,
limit=limit,

    )).parsed
