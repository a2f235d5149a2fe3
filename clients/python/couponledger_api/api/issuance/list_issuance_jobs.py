from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_body import ErrorBody
from ...models.job_list import JobList
from ...models.job_status import JobStatus
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    template: str | Unset = UNSET,
    status: JobStatus | Unset = UNSET,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["template"] = template

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status.value

    params["status"] = json_status

    params["offset"] = offset

    params["limit"] = limit


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/issuance-jobs",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | JobList | None:
    if response.status_code == 200:
        response_200 = JobList.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | JobList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    template: str | Unset = UNSET,
    status: JobStatus | Unset = UNSET,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> Response[ErrorBody | JobList]:
    """ Jobs, newest first, by template and status.

    Args:
        template (str | Unset):
        status (JobStatus | Unset): Where a job stands (contract names).
        offset (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | JobList]
     """


    kwargs = _get_kwargs(
        template=template,
status=status,
offset=offset,
limit=limit,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    template: str | Unset = UNSET,
    status: JobStatus | Unset = UNSET,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> ErrorBody | JobList | None:
    """ Jobs, newest first, by template and status.

    Args:
        template (str | Unset):
        status (JobStatus | Unset): Where a job stands (contract names).
        offset (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | JobList
     """


    return sync_detailed(
        client=client,
template=template,
status=status,
offset=offset,
limit=limit,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    template: str | Unset = UNSET,
    status: JobStatus | Unset = UNSET,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> Response[ErrorBody | JobList]:
    """ Jobs, newest first, by template and status.

    Args:
        template (str | Unset):
        status (JobStatus | Unset): Where a job stands (contract names).
        offset (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | JobList]
     """


    kwargs = _get_kwargs(
        template=template,
status=status,
offset=offset,
limit=limit,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    template: str | Unset = UNSET,
    status: JobStatus | Unset = UNSET,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> ErrorBody | JobList | None:
    """ Jobs, newest first, by template and status.

    Args:
        template (str | Unset):
        status (JobStatus | Unset): Where a job stands (contract names).
        offset (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | JobList
     """


    return (await asyncio_detailed(
        client=client,
template=template,
status=status,
offset=offset,
limit=limit,

    )).parsed
