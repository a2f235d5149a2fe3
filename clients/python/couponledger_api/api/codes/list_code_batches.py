from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.batch_page import BatchPage
from ...models.code_batch_status import CodeBatchStatus
from ...models.error_body import ErrorBody
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    status: CodeBatchStatus | Unset = UNSET,
    template_sn: str | Unset = UNSET,
    package_sn: str | Unset = UNSET,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status.value

    params["status"] = json_status

    params["template_sn"] = template_sn

    params["package_sn"] = package_sn

    params["offset"] = offset

    params["limit"] = limit


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/code-batches",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> BatchPage | ErrorBody | None:
    if response.status_code == 200:
        response_200 = BatchPage.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[BatchPage | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    status: CodeBatchStatus | Unset = UNSET,
    template_sn: str | Unset = UNSET,
    package_sn: str | Unset = UNSET,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> Response[BatchPage | ErrorBody]:
    """ List batches, newest first, with the total count.

    Args:
        status (CodeBatchStatus | Unset): A code batch's status: `active` from its creation,
            `stopped` for good
            once stopped (its codes are refused).
        template_sn (str | Unset):
        package_sn (str | Unset):
        offset (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BatchPage | ErrorBody]
     """


    kwargs = _get_kwargs(
        status=status,
template_sn=template_sn,
package_sn=package_sn,
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
    status: CodeBatchStatus | Unset = UNSET,
    template_sn: str | Unset = UNSET,
    package_sn: str | Unset = UNSET,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> BatchPage | ErrorBody | None:
    """ List batches, newest first, with the total count.

    Args:
        status (CodeBatchStatus | Unset): A code batch's status: `active` from its creation,
            `stopped` for good
            once stopped (its codes are refused).
        template_sn (str | Unset):
        package_sn (str | Unset):
        offset (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BatchPage | ErrorBody
     """


    return sync_detailed(
        client=client,
status=status,
template_sn=template_sn,
package_sn=package_sn,
offset=offset,
limit=limit,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    status: CodeBatchStatus | Unset = UNSET,
    template_sn: str | Unset = UNSET,
    package_sn: str | Unset = UNSET,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> Response[BatchPage | ErrorBody]:
    """ List batches, newest first, with the total count.

    Args:
        status (CodeBatchStatus | Unset): A code batch's status: `active` from its creation,
            `stopped` for good
            once stopped (its codes are refused).
        template_sn (str | Unset):
        package_sn (str | Unset):
        offset (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BatchPage | ErrorBody]
     """


    kwargs = _get_kwargs(
        status=status,
template_sn=template_sn,
package_sn=package_sn,
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
    status: CodeBatchStatus | Unset = UNSET,
    template_sn: str | Unset = UNSET,
    package_sn: str | Unset = UNSET,
    offset: int | Unset = UNSET,
    limit: int | Unset = UNSET,

) -> BatchPage | ErrorBody | None:
    """ List batches, newest first, with the total count.

    Args:
        status (CodeBatchStatus | Unset): A code batch's status: `active` from its creation,
            `stopped` for good
            once stopped (its codes are refused).
        template_sn (str | Unset):
        package_sn (str | Unset):
        offset (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BatchPage | ErrorBody
     """


    return (await asyncio_detailed(
        client=client,
status=status,
template_sn=template_sn,
package_sn=package_sn,
offset=offset,
limit=limit,

    )).parsed
