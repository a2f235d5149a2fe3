""" Contains all the data models used in inputs/outputs """

from .action import Action
from .action_api_key_type_0 import ActionApiKeyType0
from .action_page import ActionPage
from .allocation_view import AllocationView
from .allow_channel import AllowChannel
from .allow_list_file_status import AllowListFileStatus
from .allow_list_file_view import AllowListFileView
from .allow_list_mode import AllowListMode
from .allow_list_view import AllowListView
from .api_key_view import ApiKeyView
from .audit_status import AuditStatus
from .balance import Balance
from .balance_by_status import BalanceByStatus
from .batch_kind import BatchKind
from .batch_page import BatchPage
from .batch_view import BatchView
from .best_view import BestView
from .bucket import Bucket
from .budget_day_view import BudgetDayView
from .budget_view import BudgetView
from .change_webhook import ChangeWebhook
from .change_webhook_event_types_type_0_item import ChangeWebhookEventTypesType0Item
from .change_webhook_event_types_type_1_item import ChangeWebhookEventTypesType1Item
from .channel_list import ChannelList
from .channel_status import ChannelStatus
from .channel_view import ChannelView
from .checkpoint_view import CheckpointView
from .claim import Claim
from .claim_package import ClaimPackage
from .claimable_page import ClaimablePage
from .claimable_template import ClaimableTemplate
from .cluster_view import ClusterView
from .code_batch_codes_format import CodeBatchCodesFormat
from .code_batch_status import CodeBatchStatus
from .consumer_lag import ConsumerLag
from .coupon_quote_view import CouponQuoteView
from .coupon_status import CouponStatus
from .coupon_view import CouponView
from .create_batch import CreateBatch
from .create_channel import CreateChannel
from .create_key import CreateKey
from .create_key_scopes_item import CreateKeyScopesItem
from .create_package import CreatePackage
from .create_template import CreateTemplate
from .create_webhook import CreateWebhook
from .create_webhook_event_types_type_0_item import CreateWebhookEventTypesType0Item
from .create_webhook_event_types_type_1_item import CreateWebhookEventTypesType1Item
from .created_channel import CreatedChannel
from .dead_letter import DeadLetter
from .delivery_counts import DeliveryCounts
from .delivery_list import DeliveryList
from .delivery_status import DeliveryStatus
from .delivery_view import DeliveryView
from .eligibility import Eligibility
from .error_body import ErrorBody
from .error_detail import ErrorDetail
from .event_metadata import EventMetadata
from .expiring_soon import ExpiringSoon
from .health import Health
from .history_bucket import HistoryBucket
from .history_event import HistoryEvent
from .history_event_payload import HistoryEventPayload
from .invalid_line import InvalidLine
from .issue_window_view import IssueWindowView
from .issued_key import IssuedKey
from .job_error import JobError
from .job_list import JobList
from .job_status import JobStatus
from .job_view import JobView
from .key_list import KeyList
from .kind import Kind
from .liability_report import LiabilityReport
from .liability_report_by import LiabilityReportBy
from .liability_report_format import LiabilityReportFormat
from .line_share import LineShare
from .lock_answer import LockAnswer
from .lock_body import LockBody
from .me import Me
from .named_row import NamedRow
from .not_reissued import NotReissued
from .order_answer import OrderAnswer
from .order_coupon import OrderCoupon
from .order_record import OrderRecord
from .order_refund import OrderRefund
from .order_status import OrderStatus
from .package_claim_view import PackageClaimView
from .package_item import PackageItem
from .package_job_status import PackageJobStatus
from .package_job_view import PackageJobView
from .package_page import PackagePage
from .package_status import PackageStatus
from .package_view import PackageView
from .queue_leader import QueueLeader
from .queue_state import QueueState
from .quote_answer import QuoteAnswer
from .quote_request import QuoteRequest
from .rabbit_node import RabbitNode
from .raise_quota import RaiseQuota
from .rate_limit import RateLimit
from .rate_limit_bucket import RateLimitBucket
from .raw_budget import RawBudget
from .raw_discount_type_0 import RawDiscountType0
from .raw_discount_type_0_type import RawDiscountType0Type
from .raw_discount_type_1 import RawDiscountType1
from .raw_discount_type_1_type import RawDiscountType1Type
from .raw_discount_type_2 import RawDiscountType2
from .raw_discount_type_2_type import RawDiscountType2Type
from .raw_discount_type_3 import RawDiscountType3
from .raw_discount_type_3_type import RawDiscountType3Type
from .raw_line import RawLine
from .raw_order import RawOrder
from .raw_scope_entry import RawScopeEntry
from .raw_tier import RawTier
from .raw_validity_type_0 import RawValidityType0
from .raw_validity_type_0_type import RawValidityType0Type
from .raw_validity_type_1 import RawValidityType1
from .raw_validity_type_1_type import RawValidityType1Type
from .readiness import Readiness
from .redeem import Redeem
from .redemption import Redemption
from .reflects import Reflects
from .refund_answer import RefundAnswer
from .refund_body import RefundBody
from .refund_line import RefundLine
from .refund_policy import RefundPolicy
from .refunded_line_view import RefundedLineView
from .reissued import Reissued
from .replay import Replay
from .replay_queued import ReplayQueued
from .replay_range import ReplayRange
from .revoked import Revoked
from .rotate import Rotate
from .rotate_secret import RotateSecret
from .rotate_webhook_secret import RotateWebhookSecret
from .rotated_secret import RotatedSecret
from .row import Row
from .stacking import Stacking
from .tag_rule_type_0 import TagRuleType0
from .tag_rule_type_1 import TagRuleType1
from .template_history import TemplateHistory
from .template_history_bucket import TemplateHistoryBucket
from .template_numbers import TemplateNumbers
from .template_page import TemplatePage
from .template_stats import TemplateStats
from .template_stats_by_status import TemplateStatsByStatus
from .template_status import TemplateStatus
from .template_terms import TemplateTerms
from .template_view import TemplateView
from .terms_view import TermsView
from .update_template import UpdateTemplate
from .user_balance import UserBalance
from .user_coupons_order import UserCouponsOrder
from .user_coupons_sort import UserCouponsSort
from .verify_view import VerifyView
from .wallet_coupon import WalletCoupon
from .wallet_page import WalletPage
from .webhook_list import WebhookList
from .webhook_secret import WebhookSecret
from .webhook_view import WebhookView
from .window_change import WindowChange
from .workers_status import WorkersStatus

__all__ = (
    "Action",
    "ActionApiKeyType0",
    "ActionPage",
    "AllocationView",
    "AllowChannel",
    "AllowListFileStatus",
    "AllowListFileView",
    "AllowListMode",
    "AllowListView",
    "ApiKeyView",
    "AuditStatus",
    "Balance",
    "BalanceByStatus",
    "BatchKind",
    "BatchPage",
    "BatchView",
    "BestView",
    "Bucket",
    "BudgetDayView",
    "BudgetView",
    "ChangeWebhook",
    "ChangeWebhookEventTypesType0Item",
    "ChangeWebhookEventTypesType1Item",
    "ChannelList",
    "ChannelStatus",
    "ChannelView",
    "CheckpointView",
    "Claim",
    "ClaimablePage",
    "ClaimableTemplate",
    "ClaimPackage",
    "ClusterView",
    "CodeBatchCodesFormat",
    "CodeBatchStatus",
    "ConsumerLag",
    "CouponQuoteView",
    "CouponStatus",
    "CouponView",
    "CreateBatch",
    "CreateChannel",
    "CreatedChannel",
    "CreateKey",
    "CreateKeyScopesItem",
    "CreatePackage",
    "CreateTemplate",
    "CreateWebhook",
    "CreateWebhookEventTypesType0Item",
    "CreateWebhookEventTypesType1Item",
    "DeadLetter",
    "DeliveryCounts",
    "DeliveryList",
    "DeliveryStatus",
    "DeliveryView",
    "Eligibility",
    "ErrorBody",
    "ErrorDetail",
    "EventMetadata",
    "ExpiringSoon",
    "Health",
    "HistoryBucket",
    "HistoryEvent",
    "HistoryEventPayload",
    "InvalidLine",
    "IssuedKey",
    "IssueWindowView",
    "JobError",
    "JobList",
    "JobStatus",
    "JobView",
    "KeyList",
    "Kind",
    "LiabilityReport",
    "LiabilityReportBy",
    "LiabilityReportFormat",
    "LineShare",
    "LockAnswer",
    "LockBody",
    "Me",
    "NamedRow",
    "NotReissued",
    "OrderAnswer",
    "OrderCoupon",
    "OrderRecord",
    "OrderRefund",
    "OrderStatus",
    "PackageClaimView",
    "PackageItem",
    "PackageJobStatus",
    "PackageJobView",
    "PackagePage",
    "PackageStatus",
    "PackageView",
    "QueueLeader",
    "QueueState",
    "QuoteAnswer",
    "QuoteRequest",
    "RabbitNode",
    "RaiseQuota",
    "RateLimit",
    "RateLimitBucket",
    "RawBudget",
    "RawDiscountType0",
    "RawDiscountType0Type",
    "RawDiscountType1",
    "RawDiscountType1Type",
    "RawDiscountType2",
    "RawDiscountType2Type",
    "RawDiscountType3",
    "RawDiscountType3Type",
    "RawLine",
    "RawOrder",
    "RawScopeEntry",
    "RawTier",
    "RawValidityType0",
    "RawValidityType0Type",
    "RawValidityType1",
    "RawValidityType1Type",
    "Readiness",
    "Redeem",
    "Redemption",
    "Reflects",
    "RefundAnswer",
    "RefundBody",
    "RefundedLineView",
    "RefundLine",
    "RefundPolicy",
    "Reissued",
    "Replay",
    "ReplayQueued",
    "ReplayRange",
    "Revoked",
    "Rotate",
    "RotatedSecret",
    "RotateSecret",
    "RotateWebhookSecret",
    "Row",
    "Stacking",
    "TagRuleType0",
    "TagRuleType1",
    "TemplateHistory",
    "TemplateHistoryBucket",
    "TemplateNumbers",
    "TemplatePage",
    "TemplateStats",
    "TemplateStatsByStatus",
    "TemplateStatus",
    "TemplateTerms",
    "TemplateView",
    "TermsView",
    "UpdateTemplate",
    "UserBalance",
    "UserCouponsOrder",
    "UserCouponsSort",
    "VerifyView",
    "WalletCoupon",
    "WalletPage",
    "WebhookList",
    "WebhookSecret",
    "WebhookView",
    "WindowChange",
    "WorkersStatus",
)
