from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.template_history import TemplateHistory
from ...models.template_history_bucket import TemplateHistoryBucket
from ...types import UNSET, Unset
from typing import cast
import datetime



def _get_kwargs(
    sn: str,
    *,
    bucket: TemplateHistoryBucket | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_bucket: str | Unset = UNSET
    if not isinstance(bucket, Unset):
        json_bucket = bucket.value

    params["bucket"] = json_bucket

    json_from_: str | Unset = UNSET
    if not isinstance(from_, Unset):
        json_from_ = from_.isoformat()
    params["from"] = json_from_

    json_to: str | Unset = UNSET
    if not isinstance(to, Unset):
        json_to = to.isoformat()
    params["to"] = json_to


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/templates/{sn}/history".format(sn=quote(str(sn), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | TemplateHistory | None:
    if response.status_code == 200:
        response_200 = TemplateHistory.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | TemplateHistory]:
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
    bucket: TemplateHistoryBucket | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,

) -> Response[ErrorBody | TemplateHistory]:
    """ A template's coupons over time: per bucket, how many were issued and
    what has become of those (unused, locked, used, refunded, expired,
    void, as they stand now). At most 1,500 buckets an answer: a chart is
    no wider than that, and the bound keeps the answer and its query small.

    Args:
        sn (str):
        bucket (TemplateHistoryBucket | Unset):
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | TemplateHistory]
     """


    kwargs = _get_kwargs(
        sn=sn,
bucket=bucket,
from_=from_,
to=to,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    sn: str,
    *,
    client: AuthenticatedClient,
    bucket: TemplateHistoryBucket | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,

) -> ErrorBody | TemplateHistory | None:
    """ A template's coupons over time: per bucket, how many were issued and
    what has become of those (unused, locked, used, refunded, expired,
    void, as they stand now). At most 1,500 buckets an answer: a chart is
    no wider than that, and the bound keeps the answer and its query small.

    Args:
        sn (str):
        bucket (TemplateHistoryBucket | Unset):
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | TemplateHistory
     """


    return sync_detailed(
        sn=sn,
client=client,
bucket=bucket,
from_=from_,
to=to,

    ).parsed

async def asyncio_detailed(
    sn: str,
    *,
    client: AuthenticatedClient,
    bucket: TemplateHistoryBucket | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,

) -> Response[ErrorBody | TemplateHistory]:
    """ A template's coupons over time: per bucket, how many were issued and
    what has become of those (unused, locked, used, refunded, expired,
    void, as they stand now). At most 1,500 buckets an answer: a chart is
    no wider than that, and the bound keeps the answer and its query small.

    Args:
        sn (str):
        bucket (TemplateHistoryBucket | Unset):
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | TemplateHistory]
     """


    kwargs = _get_kwargs(
        sn=sn,
bucket=bucket,
from_=from_,
to=to,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    sn: str,
    *,
    client: AuthenticatedClient,
    bucket: TemplateHistoryBucket | Unset = UNSET,
    from_: datetime.datetime | Unset = UNSET,
    to: datetime.datetime | Unset = UNSET,

) -> ErrorBody | TemplateHistory | None:
    """ A template's coupons over time: per bucket, how many were issued and
    what has become of those (unused, locked, used, refunded, expired,
    void, as they stand now). At most 1,500 buckets an answer: a chart is
    no wider than that, and the bound keeps the answer and its query small.

    Args:
        sn (str):
        bucket (TemplateHistoryBucket | Unset):
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | TemplateHistory
     """


    return (await asyncio_detailed(
        sn=sn,
client=client,
bucket=bucket,
from_=from_,
to=to,

    )).parsed
