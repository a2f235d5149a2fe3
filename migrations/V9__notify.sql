-- Expiry reminders (docs/design.md §10, issue 14).

-- A template may remind at several offsets: a list, largest first. A single
-- number becomes a one-element list (the API and events still show it as a
-- number).
ALTER TABLE templates
    ALTER COLUMN remind_days_before TYPE integer[]
    USING CASE WHEN remind_days_before IS NULL THEN NULL ELSE ARRAY[remind_days_before] END;

-- One reminder per user, template, day and type (contract). `coupon_id` is
-- the coupon that created the row; others of the same user, template and
-- day share it. Status: 0 pending, 1 sent, 2 failed, 3 cancelled.
CREATE TABLE notify_msg (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    coupon_id   uuid        NOT NULL,
    user_id     text        NOT NULL,
    template_sn text        NOT NULL,
    notify_day  date        NOT NULL,
    notify_type smallint    NOT NULL,
    notify_time timestamptz NOT NULL,
    status      smallint    NOT NULL DEFAULT 0 CHECK (status IN (0, 1, 2, 3)),
    attempts    integer     NOT NULL DEFAULT 0,
    sent_at     timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (user_id, template_sn, notify_day, notify_type)
);

-- The sender's scan: pending rows whose time has come, in time order.
CREATE INDEX notify_msg_due ON notify_msg (notify_time, id) WHERE status = 0;
-- Retention: sent and cancelled rows by age.
CREATE INDEX notify_msg_done ON notify_msg (notify_time) WHERE status IN (1, 3);

-- What the notify projection knows of each coupon it follows: enough to
-- decide whether a user still holds a live coupon for a (template, day),
-- to list the coupon in a reminder, and to detect gaps (`version`).
CREATE TABLE notify_coupons (
    coupon_id   uuid           PRIMARY KEY,
    user_id     text           NOT NULL,
    template_sn text           NOT NULL,
    face_value  numeric(20, 2) NOT NULL,
    status      text           NOT NULL,
    version     integer        NOT NULL,
    expires_at  timestamptz    NOT NULL,
    -- The days this coupon is reminded on (empty: no reminder).
    notify_days date[]         NOT NULL
);

CREATE INDEX notify_coupons_holder ON notify_coupons (user_id, template_sn);
