from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.liability_report import LiabilityReport
from ...models.liability_report_by import LiabilityReportBy
from ...models.liability_report_format import LiabilityReportFormat
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    as_of: str,
    by: LiabilityReportBy | Unset = UNSET,
    format_: LiabilityReportFormat | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["as_of"] = as_of

    json_by: str | Unset = UNSET
    if not isinstance(by, Unset):
        json_by = by.value

    params["by"] = json_by

    json_format_: str | Unset = UNSET
    if not isinstance(format_, Unset):
        json_format_ = format_.value

    params["format"] = json_format_


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/reports/liability",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | LiabilityReport | None:
    if response.status_code == 200:
        response_200 = LiabilityReport.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | LiabilityReport]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    as_of: str,
    by: LiabilityReportBy | Unset = UNSET,
    format_: LiabilityReportFormat | Unset = UNSET,

) -> Response[ErrorBody | LiabilityReport]:
    """ What the ledger owed and what its coupons cost as of an instant, from
    the events alone (the same numbers as `ledger report liability`).

    Args:
        as_of (str):
        by (LiabilityReportBy | Unset):
        format_ (LiabilityReportFormat | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | LiabilityReport]
     """


    kwargs = _get_kwargs(
        as_of=as_of,
by=by,
format_=format_,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    as_of: str,
    by: LiabilityReportBy | Unset = UNSET,
    format_: LiabilityReportFormat | Unset = UNSET,

) -> ErrorBody | LiabilityReport | None:
    """ What the ledger owed and what its coupons cost as of an instant, from
    the events alone (the same numbers as `ledger report liability`).

    Args:
        as_of (str):
        by (LiabilityReportBy | Unset):
        format_ (LiabilityReportFormat | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | LiabilityReport
     """


    return sync_detailed(
        client=client,
as_of=as_of,
by=by,
format_=format_,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    as_of: str,
    by: LiabilityReportBy | Unset = UNSET,
    format_: LiabilityReportFormat | Unset = UNSET,

) -> Response[ErrorBody | LiabilityReport]:
    """ What the ledger owed and what its coupons cost as of an instant, from
    the events alone (the same numbers as `ledger report liability`).

    Args:
        as_of (str):
        by (LiabilityReportBy | Unset):
        format_ (LiabilityReportFormat | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | LiabilityReport]
     """


    kwargs = _get_kwargs(
        as_of=as_of,
by=by,
format_=format_,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    as_of: str,
    by: LiabilityReportBy | Unset = UNSET,
    format_: LiabilityReportFormat | Unset = UNSET,

) -> ErrorBody | LiabilityReport | None:
    """ What the ledger owed and what its coupons cost as of an instant, from
    the events alone (the same numbers as `ledger report liability`).

    Args:
        as_of (str):
        by (LiabilityReportBy | Unset):
        format_ (LiabilityReportFormat | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | LiabilityReport
     """


    return (await asyncio_detailed(
        client=client,
as_of=as_of,
by=by,
format_=format_,

    )).parsed
