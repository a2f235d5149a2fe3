// Drives the admin console in Debian's headless Chromium with playwright-core
// (no browser download). Run by tests/tests/console_browser.rs, which starts
// `ledger serve` and passes, in the environment:
//   BASE_URL      the server, e.g. http://127.0.0.1:8080
//   ADMIN_TOKEN   the admin token (never put in a URL by the console)
//   SN, ISSUED    a template the test claimed ISSUED coupons of
//   SCREENSHOTS   where each step's screenshot goes (target/screenshots)
//   USER_FILE     a file of user ids to upload on that template
//   QUOTA         the template's quota (the upload uses it up)
//   CHANNEL       the name of a channel the console can allow
//   NAME          the name of SN (the finance page shows it beside the sn)
//   HISTORY_SN    a template whose bulk issuance of HISTORY_ISSUED lines
//                 finished before the browser started: its chart must show it
// (`ledger audit verify` ran before: the finance page shows its verdict.)
// A package of SN and the template made in the browser, and a batch of codes
// of SN, are made in the browser too.
// Exits non-zero on the first failed step, naming it.
import { chromium } from "playwright-core";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";

const { BASE_URL, ADMIN_TOKEN, SN, ISSUED, SCREENSHOTS, USER_FILE, QUOTA, CHANNEL, NAME, HISTORY_SN, HISTORY_ISSUED,
  FINANCE_TOKEN, MERCHANT_TOKEN } = process.env;
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
mkdirSync(SCREENSHOTS, { recursive: true });

const browser = await chromium.launch({
  executablePath,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});

function check(ok, what) {
  if (!ok) throw new Error(`step failed: ${what}`);
}

/** A count as the console writes it: 20,000. */
const whole = (n) => Number(n).toLocaleString("en-US");

async function shot(page, name) {
  const { width } = page.viewportSize();
  await page.screenshot({ path: `${SCREENSHOTS}/${name}-${width}.png`, fullPage: true });
}

async function signIn(page) {
  await page.goto(`${BASE_URL}/admin`);
  await page.getByLabel("Admin token").waitFor();
  check(!(await page.getByRole("button", { name: "Sign out" }).isVisible()), "no Sign out on the sign-in page");
  await shot(page, "01-sign-in");
  await page.getByLabel("Admin token").fill("not-the-token");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByText("That token is not the admin token.").waitFor();
  await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Templates" }).waitFor();
  await shot(page, "02-templates");
}

async function createTemplate(page) {
  await page.getByRole("link", { name: "New template", exact: true }).first().click();
  await page.getByRole("heading", { name: "New template" }).waitFor();
  const name = `browser ${Date.now()}`;
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("threshold").fill("199.00");
  await page.getByLabel("amount").fill("twenty");
  await page.getByRole("button", { name: "Create" }).click();
  const error = page.locator('[data-error-for="discount.amount"]');
  await error.filter({ hasText: /amount/ }).waitFor();
  await shot(page, "03-new-template-field-error");
  await page.getByLabel("amount").fill("20.00");
  // Who may claim: a bad region is named by its field, then fixed.
  await page.getByLabel("Who may claim: user tags").fill("any: vip, gold");
  await page.getByLabel("Who may claim: regions").fill(`310000, ${"x".repeat(65)}`);
  await page.getByLabel("Description (what apps show)").fill("20 off 199 for our VIPs");
  await page.getByRole("button", { name: "Create" }).click();
  await page.locator('[data-error-for="eligibility.regions"]').filter({ hasText: /regions\[1\]/ }).waitFor();
  await page.getByLabel("Who may claim: regions").fill("310000, 110000");
  await page.getByRole("button", { name: "Create" }).click();
  await page.getByRole("heading", { name }).waitFor();
  const campaign = await page.locator("#campaign").textContent();
  check(campaign.includes("users tagged any of gold, vip; in 110000, 310000"), `who may claim: ${campaign}`);
  check(campaign.includes("20 off 199 for our VIPs"), "the description is shown");
  check((await page.locator(".terms").textContent()).includes("满199.00减20.00"), "terms in words");
  await page.getByRole("button", { name: `activate ${name}` }).click();
  await page.locator(".status.active").first().waitFor();
  const sn = decodeURIComponent(new URL(page.url()).hash.split("/")[2]);
  return { name, sn };
}

async function templatePage(page, issued, jobDone) {
  await page.goto(`${BASE_URL}/admin#/templates/${SN}`);
  await page.locator('[data-stat="issued"]').filter({ hasText: new RegExp(`^${whole(issued)}$`) }).waitFor();
  check(await page.locator(".chart canvas").count() > 0, "the chart is drawn");
  if (jobDone) await page.locator("#jobs .status.done").first().waitFor();
  await shot(page, "04-template");
}

/** On the template made in the browser: raise the quota, change the
 *  reminders, raise the per-user limit, allow a channel; each shows on the
 *  reloaded page. */
async function templateSettings(page, name) {
  await page.getByRole("heading", { name }).waitFor();
  await page.getByLabel(/^Quota/).fill("1500");
  await page.getByRole("button", { name: "Raise quota" }).click();
  await page.getByLabel(/^Quota \(issued 0/).and(page.locator('[value="1500"]')).waitFor();
  await page.getByLabel("Remind days before expiry").fill("7, 1");
  await page.getByRole("button", { name: "Save reminders" }).click();
  await page.getByLabel("Remind days before expiry").and(page.locator('[value="7, 1"]')).waitFor();
  // The campaign: a raised per-user limit shows in its facts and its form.
  await page.getByLabel(/^Coupons per user/).fill("3");
  await page.getByRole("button", { name: "Save campaign" }).click();
  await page.getByLabel(/^Coupons per user/).and(page.locator('[value="3"]')).waitFor();
  await page.locator("#campaign dd").filter({ hasText: /^3$/ }).waitFor();
  await page.getByLabel("Allow a channel").selectOption({ label: CHANNEL });
  await page.getByRole("button", { name: "Allow", exact: true }).click();
  await page.locator("#channels li").filter({ hasText: CHANNEL }).waitFor();
  // The only channel there is now may issue it: said as a fact, not as a missing step.
  await page.locator("#all-channels").filter({ hasText: /^Every existing channel may issue it\./ }).waitFor();
  // The template's changes name the operator who made them (the console's token is operator `admin`).
  const changes = page.locator("#template-events li");
  await changes.filter({ hasText: "TemplateChannelAllowed" }).filter({ hasText: "by admin" }).waitFor();
  check(await changes.filter({ hasText: "TemplateQuotaRaised" }).count() === 1, "the changes list the quota raised");
  await page.getByLabel(/^Quota/).fill("10");
  await page.getByRole("button", { name: "Raise quota" }).click();
  await page.locator("[role=alert]").filter({ hasText: "total may only be raised (now 1500)" }).waitFor();
  await shot(page, "08-template-settings");
}

/** Uploads USER_FILE on the template page open. At desktop width the quota
 *  has room; at phone width it is used up: every line ends sold out. */
async function bulkIssuance(page) {
  await page.setInputFiles("#user-file", USER_FILE);
  await page.getByRole("button", { name: "Upload" }).click();
  await page.locator("#job-line").filter({ hasText: /^done: .*\(100 %\)/ }).waitFor({ timeout: 120000 });
  // The chart is redrawn as the job ends: the template's whole quota is issued.
  await page.locator(`#history[data-issued="${QUOTA}"]`).waitFor();
  const upload = page.getByRole("progressbar", { name: "Upload" });
  check(await upload.evaluate((p) => p.value === p.max), "the upload bar is full");
  const job = page.getByRole("progressbar", { name: "Issuance" });
  check(await job.evaluate((p) => p.value === p.max), "the issuance bar is full");
  await shot(page, "05-bulk-issuance-done");
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Download report (CSV)" }).click(),
  ]);
  const report = readFileSync(await download.path(), "utf8");
  check(report.split("\n").length > 1, "the report has rows");
}

async function couponLookup(page) {
  await page.getByRole("link", { name: "Coupons" }).click();
  await page.getByLabel("Coupon id or user id").fill("ann");
  await page.getByRole("button", { name: "Look up" }).click();
  await page.getByRole("heading", { name: "ann: 1 coupon(s)" }).waitFor();
  await shot(page, "06-coupons-of-a-user");
  await page.locator("table code").first().click();
  await page.getByRole("heading", { name: "Timeline" }).waitFor();
  check(await page.locator(".timeline li").filter({ hasText: "CouponIssued" }).count() === 1, "the timeline shows the issue");
  await shot(page, "07-coupon-timeline");
}

async function finance(page) {
  await page.getByRole("link", { name: "Finance" }).click();
  await page.getByRole("heading", { name: "Finance" }).waitFor();
  await page.locator("#last-verify").filter({ hasText: "intact" }).waitFor();
  await page.getByLabel("By").selectOption("template");
  await page.getByRole("button", { name: "Run report" }).click();
  const row = page.locator("#liability-table tr").filter({ has: page.getByRole("rowheader", { name: SN }) });
  await row.waitFor();
  check((await row.locator("td").first().textContent()) === whole(QUOTA), "the report counts the quota as issued");
  check((await row.locator("th").textContent()).startsWith(NAME), "the template's name beside its sn");
  await shot(page, "09-finance");
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Download CSV" }).click(),
  ]);
  const csv = readFileSync(await download.path(), "utf8");
  check(csv.startsWith("group,issued,unused,") && csv.includes(`${SN},${QUOTA},`), "the CSV has the template's row");
  // By shop: both templates are the platform's own (no shop).
  await page.getByLabel("By").selectOption("shop");
  await page.getByRole("button", { name: "Run report" }).click();
  const platform = page.locator("#liability-table tr")
    .filter({ has: page.getByRole("rowheader", { name: "platform (no shop)" }) });
  await platform.waitFor();
  check((await platform.locator("td").first().textContent()) === whole(Number(QUOTA) + Number(HISTORY_ISSUED)),
    "by shop, the platform's row counts both templates' coupons");
  // The end of a past day: nothing was owed then.
  await page.getByLabel("As of the end of").fill("2020-01-31");
  await page.getByLabel("By").selectOption("channel");
  await page.getByRole("button", { name: "Run report" }).click();
  await page.getByRole("heading", { name: /Liability as of .*2020/ }).waitFor();
  check(await page.locator("#liability-table tbody tr").count() === 1, "only the total row in 2020");
}

/** A template whose 20,000-line bulk issuance finished before the page was
 *  opened: the chart, drawn from the ledger's history, shows it, with y-axis
 *  labels that read as numbers (20k), not clipped ones (0,000). */
async function templateHistory(page) {
  await page.goto(`${BASE_URL}/admin#/templates/${HISTORY_SN}`);
  const chart = page.locator(`#history[data-issued="${HISTORY_ISSUED}"]`);
  await chart.waitFor();
  check(await page.locator("#history canvas").count() > 0, "the chart is drawn");
  const ticks = (await chart.getAttribute("data-y-ticks")).split(" ");
  check(ticks.every((t) => /^\d+(\.\d+)?[kMB]?$/.test(t)), `readable y-axis labels: ${ticks}`);
  check(ticks.includes("20k"), `the y axis reaches 20k: ${ticks}`);
  const summary = await page.locator("#history-summary").textContent();
  check(summary.startsWith(`${whole(HISTORY_ISSUED)} issued since`), `the summary counts the issuance: ${summary}`);
  await page.locator('[data-stat="issued"]').filter({ hasText: whole(HISTORY_ISSUED) }).waitFor();
  await shot(page, "13-template-history");
}

async function workers(page) {
  await page.getByRole("link", { name: "Workers" }).click();
  // Its answer reads RabbitMQ's management API and counts every consumer's lag: seconds each while the
  // suite's heaviest tests load the same broker and database (a CI run waited past 30 s once).
  await page.locator("#lag-table").getByRole("rowheader", { name: "relay:coupon.events.template_stats" })
    .waitFor({ timeout: 90_000 });
  await page.locator("#queue-table").getByRole("rowheader", { name: "coupon.issuance.work" }).waitFor();
  await page.getByRole("heading", { name: /^Dead letters/ }).waitFor();
  await shot(page, "10-workers");
}

/** A package of two templates made in the browser (a third item row added
 *  and removed, and a count of 0 refused, on the way), then activated:
 *  listed active with 0 claimed. */
async function packages(page, sns) {
  await page.locator("#nav").getByRole("link", { name: "Packages" }).click();
  await page.getByRole("heading", { name: "Packages" }).waitFor();
  const name = `pack ${Date.now()}`;
  await page.getByLabel("Name").fill(name);
  await page.getByRole("button", { name: "Add item" }).click();
  await page.getByRole("button", { name: "Add item" }).click();
  await page.getByRole("button", { name: "Remove item 2" }).click();
  check(await page.locator("fieldset.items .item").count() === 2, "two item rows after one is removed");
  for (const [i, sn] of sns.entries()) {
    await page.getByLabel(`Item ${i + 1}: template sn`).fill(sn);
    await page.locator(`[data-field="items[${i}].count"]`).fill("1");
  }
  await page.getByLabel("Claims in all").fill("10");
  // The API's error for the second item's count shows next to that field.
  await page.locator('[data-field="items[1].count"]').fill("0");
  await page.getByRole("button", { name: "Create package" }).click();
  await page.locator('[data-error-for="items[1].count"]').filter({ hasText: "must be at least 1" }).waitFor();
  await page.locator('[data-field="items[1].count"]').fill("1");
  await page.getByRole("button", { name: "Create package" }).click();
  const row = page.locator("#packages tr").filter({ hasText: name });
  await row.locator(".status.draft").waitFor();
  check((await row.locator("td").nth(3).textContent()) === sns.map((sn) => `1 × ${sn}`).join(""), "the row lists both items");
  await row.getByRole("button", { name: `activate ${name}` }).click();
  await row.locator(".status.active").waitFor();
  check((await row.locator("td").nth(2).textContent()) === "0 / 10", "the package is listed with 0 claimed of 10");
  await shot(page, "12-packages");
}

const CODE = /^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{10}$/;

/** A batch of 5 codes of SN made in the browser, its CSV, a field error for
 *  a count of 0, and the batch stopped (asked to confirm first). */
async function codes(page) {
  await page.locator("#nav").getByRole("link", { name: "Codes" }).click();
  await page.getByRole("heading", { name: "Codes" }).waitFor();
  await page.getByLabel("Template sn").fill(SN);
  await page.getByLabel("Number of codes").fill("5");
  await page.getByRole("button", { name: "Create batch" }).click();
  await page.getByRole("heading", { name: "Code batch" }).waitFor();
  const id = decodeURIComponent(new URL(page.url()).hash.split("/")[2]);
  check(await page.locator("#batch-status").textContent() === "open", "a new batch is open");
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Download codes (CSV)" }).click(),
  ]);
  const [header, ...lines] = readFileSync(await download.path(), "utf8").trim().split("\n");
  const got = lines.map((line) => line.split(",")[1]);
  check(header === "serial,code", `the CSV's header: ${header}`);
  check(got.length === 5 && got.every((c) => CODE.test(c)) && new Set(got).size === 5, `5 distinct codes: ${got}`);
  page.once("dialog", (dialog) => dialog.accept());
  await page.getByRole("button", { name: "stop batch" }).click();
  await page.locator("#batch-status").filter({ hasText: "stopped" }).waitFor();
  check(await page.getByRole("button", { name: "stop batch" }).count() === 0, "no Stop on a stopped batch");
  await page.locator("#nav").getByRole("link", { name: "Codes" }).click();
  const row = page.locator("#batches tr").filter({ has: page.locator(`a[href="#/codes/${id}"]`) });
  await row.locator(".status.stopped").waitFor();
  await page.getByLabel("Template sn").fill(SN);
  await page.getByLabel("Number of codes").fill("0");
  await page.getByRole("button", { name: "Create batch" }).click();
  await page.locator('[data-error-for="count"]').filter({ hasText: /^count: must be 1 to/ }).waitFor();
  check(await page.getByLabel("Number of codes").getAttribute("aria-invalid") === "true", "the count is marked invalid");
  await shot(page, "11-codes");
}

/** The channels page: the test's channel listed active, disabled (asked
 *  first) and enabled again; its secret rotated with an overlap, the new
 *  secret shown once and not after a reload; then removed from the
 *  template made in the browser (asked first). */
async function channels(page, sn) {
  await page.locator("#nav").getByRole("link", { name: "Channels" }).click();
  await page.getByRole("heading", { name: "Channels" }).waitFor();
  const row = page.locator("#channel-table tbody tr").filter({ hasText: CHANNEL }).first();
  await row.locator(".status.active").waitFor();
  page.once("dialog", (dialog) => dialog.accept());
  await row.getByRole("button", { name: `disable ${CHANNEL}` }).click();
  await row.locator(".status.disabled").waitFor();
  await row.getByRole("button", { name: `enable ${CHANNEL}` }).click();
  await row.locator(".status.active").waitFor();
  await row.getByLabel("Overlap (s)").fill("60");
  page.once("dialog", (dialog) => dialog.accept());
  await row.getByRole("button", { name: "Rotate secret" }).click();
  const secret = page.locator("#rotated-secret");
  await secret.waitFor();
  check(/^[0-9a-f]{64}$/.test(await secret.textContent()), "the new secret is shown");
  check((await row.locator("td").nth(3).textContent()) !== "—", "the old secret's end is shown");
  await shot(page, "14-channels");
  await page.locator("#nav").getByRole("link", { name: "Packages" }).click();
  await page.getByRole("heading", { name: "Packages" }).waitFor();
  await page.locator("#nav").getByRole("link", { name: "Channels" }).click();
  await row.locator(".status.active").waitFor();
  check(await page.locator("#rotated-secret").count() === 0, "the secret is not shown again");
  await page.goto(`${BASE_URL}/admin#/templates/${sn}`);
  const listed = page.locator("#channels li").filter({ hasText: CHANNEL });
  page.once("dialog", (dialog) => dialog.accept());
  await listed.getByRole("button", { name: `remove ${CHANNEL}` }).click();
  await page.locator("#channels").getByText("No channel may issue it yet.").waitFor();
}

/** The allow-list of the template made in the browser (one per viewport): a file added, its bad line
 *  named by number, and a user looked up. */
async function allowList(page, sn) {
  await page.goto(`${BASE_URL}/admin#/templates/${sn}`);
  const file = `${SCREENSHOTS}/allow-list.txt`;
  writeFileSync(file, "a1\na2\nbad user\n");
  await page.locator("#allow-list-summary").filter({ hasText: /users on the list/ }).waitFor();
  await page.setInputFiles("#allow-list-file", file);
  await page.getByRole("button", { name: "Apply to the list" }).click();
  await page.locator("#allow-list-result")
    .filter({ hasText: "2 changed of 2 valid lines, 0 blank, 1 invalid (line 3:" }).waitFor();
  await page.locator("#allow-list-summary").filter({ hasText: /^2 users on the list; not applied/ }).waitFor();
  await page.getByLabel("Is a user on it?").fill("a2");
  await page.locator("#allow-list").getByRole("button", { name: "Look up" }).click();
  await page.locator("#allow-list-found").filter({ hasText: /^on the list$/ }).waitFor();
  check(await page.locator("#allow-list-files tbody tr").count() === 1, "the file is listed");
  await shot(page, "15-allow-list");
}

/** App keys (admin): one made with a scope, its key shown once, then revoked. */
async function keys(page) {
  await page.locator("#nav").getByRole("link", { name: "Keys" }).click();
  await page.getByRole("heading", { name: "App keys" }).waitFor();
  const name = `app-${Date.now()}`;
  await page.getByLabel("App name").fill(name);
  await page.getByLabel("orders").check();
  await page.getByRole("button", { name: "Make key" }).click();
  const key = page.locator("#shown-key");
  await key.waitFor();
  check(/^clk_[0-9a-f]{64}$/.test(await key.textContent()), "the new key is shown once");
  const row = page.locator("#key-table tbody tr").filter({ hasText: name });
  check((await row.locator("td").nth(1).textContent()) === "orders", "its scopes are listed");
  await shot(page, "16-keys");
  page.once("dialog", (dialog) => dialog.accept());
  await row.getByRole("button", { name: `revoke ${name}` }).click();
  await page.locator("#key-table tbody tr").filter({ hasText: name }).getByText(/^revoked/).waitFor();
}

/** Signs out, then in with `token`, on the templates page. */
async function signInAs(page, token) {
  await page.goto(`${BASE_URL}/admin#/templates`);
  await page.getByRole("heading", { name: "Templates" }).waitFor();
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByLabel("Admin token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** Finance sees reports and no change; a merchant is refused another shop's template; the admin signs back in. */
async function otherRoles(page) {
  await signInAs(page, FINANCE_TOKEN);
  await page.getByRole("heading", { name: "Templates" }).waitFor();
  const nav = page.locator("#nav");
  check(await nav.getByRole("link", { name: "Finance" }).isVisible(), "finance sees Finance");
  for (const hidden of ["New template", "Keys", "Channels", "Workers"]) {
    check(!(await nav.getByRole("link", { name: hidden, exact: true }).isVisible()), `finance sees no ${hidden}`);
  }
  await page.goto(`${BASE_URL}/admin#/templates/${SN}`);
  await page.getByRole("heading", { name: "Live numbers" }).waitFor();
  check(await page.getByRole("heading", { name: "Bulk issuance" }).count() === 0, "finance uploads nothing");
  check(await page.getByRole("button", { name: /^(stop|void)/ }).count() === 0, "finance changes nothing");
  await shot(page, "17-finance-role");
  await signInAs(page, MERCHANT_TOKEN);
  await page.getByRole("heading", { name: "Templates" }).waitFor();
  await page.goto(`${BASE_URL}/admin#/templates/${SN}`);
  await page.getByRole("alert").filter({ hasText: "merchant" }).waitFor();
  await signInAs(page, ADMIN_TOKEN);
  await page.getByRole("heading", { name: "Templates" }).waitFor();
}

async function tokenKeptOutOfUrlAndStorage(page) {
  check(!page.url().includes(ADMIN_TOKEN), "the token is not in the URL");
  const stored = await page.evaluate(() => ({ local: JSON.stringify(localStorage), session: sessionStorage.length }));
  check(!stored.local.includes(ADMIN_TOKEN) && stored.local === "{}", "nothing in localStorage");
  check(stored.session === 1, "the token is in sessionStorage");
}

try {
  for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    const desktop = viewport.width === 1280;
    const context = await browser.newContext({ viewport, acceptDownloads: true });
    const page = await context.newPage();
    await signIn(page);
    const made = await createTemplate(page);
    await templateSettings(page, made.name);
    // Before the upload: the test's claims; after it: the whole quota.
    await templateHistory(page);
    await templatePage(page, desktop ? ISSUED : QUOTA, !desktop);
    await bulkIssuance(page);
    await couponLookup(page);
    await finance(page);
    await workers(page);
    await packages(page, [SN, made.sn]);
    await codes(page);
    await channels(page, made.sn);
    await allowList(page, made.sn);
    await keys(page);
    await otherRoles(page);
    await tokenKeptOutOfUrlAndStorage(page);
    await context.close();
  }
  console.log("console: every step passed");
} finally {
  await browser.close();
}
