-- CouponsGranted messages (docs/design.md §10, issue 49): an issuance job
-- opened with `notify=true` tells each of its users, once, which coupons it
-- gave them.

-- What the job asked for; its chunks copy it into their coupons'
-- `CouponIssued` (`job_notify`), so the notify projection and replay learn
-- it from the events.
ALTER TABLE issuance_jobs ADD COLUMN notify boolean NOT NULL DEFAULT false;

-- A granted row is one per (job, user): it names its job. Reminders keep
-- their uniqueness per (user, template, day, type) through a partial index
-- of their own type, so that two jobs of one template on one day give a
-- user two granted rows while a reminder still has exactly one.
ALTER TABLE notify_msg ADD COLUMN job_id uuid;
ALTER TABLE notify_msg DROP CONSTRAINT notify_msg_user_id_template_sn_notify_day_notify_type_key;
CREATE UNIQUE INDEX notify_msg_reminder ON notify_msg (user_id, template_sn, notify_day, notify_type)
    WHERE notify_type = 1;
CREATE UNIQUE INDEX notify_msg_granted ON notify_msg (job_id, user_id) WHERE notify_type = 2;
-- A granted row without its job, or a reminder with one, is a bug.
ALTER TABLE notify_msg ADD CONSTRAINT notify_msg_job_by_type
    CHECK ((notify_type = 2) = (job_id IS NOT NULL));

-- The job whose CouponsGranted message lists the coupon (null: none asked
-- for one), so the projection can tell whether a user still holds a live
-- coupon of that job when one of them leaves.
ALTER TABLE notify_coupons ADD COLUMN granted_job uuid;
