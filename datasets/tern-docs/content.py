"""The source text of the tern-docs dataset: Tern Logistics, a fictional freight-software company.

Written by the rag-bench team for this dataset. ``build.py`` turns each entry into a real file
(PDF with reportlab, Word with python-docx, PowerPoint with python-pptx, Excel with openpyxl, HTML
by hand); blocks are ("h1"|"h2"|"p"|"li", text), ("table", rows), ("columns", [blocks]) for a
two-column stretch of a PDF (("next-column",) moves to its right column), ("break",) for a page break.
"""

SECURITY = [
    ("h1", "Security Policy"),
    ("p", "This policy applies to every employee, contractor and service account at Tern Logistics. It is owned "
     "by the security team and reviewed every six months; the current review was approved by the chief "
     "technology officer on 14 March 2024."),
    ("h2", "1. Accounts and passwords"),
    ("p", "Every person has exactly one named account. Shared accounts are forbidden, with the single exception "
     "of the warehouse kiosk accounts, which are locked to one terminal each and cannot reach the internet."),
    ("p", "Passwords must be at least fourteen characters long and must not appear in the breached-password list "
     "that the identity service checks at every change. Rotation is not required for personal accounts unless "
     "a compromise is suspected."),
    ("table", [["Account type", "Minimum length", "Rotation", "MFA"],
               ["Personal", "14", "on suspicion only", "required"],
               ["Service account", "32", "every 90 days", "not applicable"],
               ["Kiosk", "12", "every 30 days", "hardware key"],
               ["Break-glass admin", "24", "after each use", "hardware key"]]),
    ("p", "Multi-factor authentication is required for every personal account. Break-glass administrator "
     "credentials are sealed in the office safe in Rotterdam and their use pages the security on-call "
     "engineer within five minutes."),
    ("h2", "2. Devices"),
    ("p", "Laptops are encrypted with full-disk encryption before they are handed out. A lost or stolen laptop "
     "must be reported to the service desk within four hours, after which the device is wiped remotely. "
     "Personal phones may read email only through the managed mail application, which keeps company data in "
     "a separate container that the service desk can erase without touching personal photos or messages."),
    ("p", "Removable storage is blocked on all company laptops by default. Engineers who need to flash firmware "
     "onto scanners may request a temporary exception, which expires after seven days and is logged in the "
     "device registry together with the ticket number that justified it."),
    ("h2", "3. Data classification"),
    ("p", "Data is classified as public, internal, confidential or restricted. Customer shipment manifests are "
     "confidential; payment card data and customs identity documents are restricted and may only be stored in "
     "the vault cluster in the Frankfurt region. Restricted data never leaves the vault cluster in clear text, "
     "and every export is encrypted with the customer's own key."),
    ("p", "Confidential data may be shared with a carrier partner only under a signed data processing agreement. "
     "The legal team keeps the register of agreements and reviews each one when the partner changes its "
     "subprocessors or its hosting region."),
    ("h2", "4. Incidents"),
    ("p", "Anyone who suspects a security incident reports it in the #sec-incident channel or by calling the "
     "security hotline on extension 4400. The security on-call engineer acknowledges every report within "
     "fifteen minutes during working hours and within thirty minutes at night and at weekends."),
    ("p", "A confirmed breach of restricted data is reported to the affected customers and to the supervisory "
     "authority within seventy-two hours of its discovery, as the regulation requires. The incident commander "
     "decides who drafts the notice; the legal team approves its wording before it is sent."),
    ("h2", "5. Exceptions"),
    ("p", "Exceptions to this policy are requested through the risk register. Each exception names an owner, a "
     "compensating control and an expiry date no more than one year away; expired exceptions are closed "
     "automatically and the owner is notified by email."),
]

REPORT = [
    ("h1", "Q3 2024 Operations Report"),
    ("p", "The third quarter brought record volumes through the Rotterdam and Gdansk hubs and the first full "
     "quarter of the new route planner. This report summarises throughput, on-time delivery, incidents and "
     "the projects that start in the fourth quarter."),
    ("h2", "Throughput by site"),
    ("table", [["Site", "Parcels (thousands)", "On-time rate", "Change vs Q2"],
               ["Rotterdam", "1,840", "96.2%", "+8%"],
               ["Gdansk", "1,215", "94.7%", "+12%"],
               ["Lyon", "730", "97.9%", "+1%"],
               ["Porto", "412", "91.3%", "-3%"]]),
    ("p", "Porto was the only site whose volume fell, after the regional grocery customer moved its returns "
     "flow to a competitor in July. Its on-time rate also dropped because two of its five sorting lines were "
     "closed for six weeks while the conveyor belts were replaced."),
    ("columns", [
        ("h2", "Route planner"),
        ("p", "The new route planner went live in all four sites on 2 July. It cut the average distance per "
         "delivery van by eleven percent compared with the second quarter, mostly by merging afternoon rounds "
         "that previously overlapped in the same postcodes."),
        ("p", "Drivers reported that the planner's first version ignored delivery windows for hospitals. The "
         "fix shipped on 19 August and since then no hospital delivery has been late because of the plan."),
        ("h2", "Incidents"),
        ("p", "There were three incidents with customer impact in the quarter. The longest was a four-hour "
         "outage of the tracking API on 3 September, caused by an expired certificate on the load balancer in "
         "front of the tracking service."),
        ("p", "After the outage, certificate expiry is monitored for every public endpoint, and an alert is "
         "raised thirty days before a certificate expires instead of the seven days used before."),
        ("next-column",),
        ("h2", "Staffing"),
        ("p", "Seasonal hiring starts earlier this year: Gdansk opens its temporary shift on 14 October with "
         "sixty extra pickers, and Rotterdam follows on 28 October with ninety."),
    ]),
    ("h2", "Projects for Q4"),
    ("p", "Three projects start in the fourth quarter. The Lyon cold-chain extension adds a refrigerated "
     "sorting hall for pharmaceutical customers and is budgeted at 2.4 million euros. The carrier portal "
     "rewrite moves the portal off the legacy PHP code base. The Porto line renewal finishes the conveyor work."),
    ("p", "The board asked for a monthly update on the cold-chain extension because its budget is the largest "
     "single investment of the year and the building permit is still pending with the city of Lyon."),
]

RUNBOOK = [
    ("h1", "Incident Runbook: Tracking API"),
    ("p", "This runbook is for the engineer on call for the tracking API. It lists the alerts, the first checks "
     "and the escalation path. Keep it open during an incident and record every action in the incident channel."),
    ("h2", "Alerts"),
    ("table", [["Alert", "Threshold", "Severity"],
               ["tracking-5xx-rate", "above 2% for 5 minutes", "SEV-2"],
               ["tracking-latency-p99", "above 1500 ms for 10 minutes", "SEV-3"],
               ["tracking-cert-expiry", "30 days before expiry", "SEV-4"],
               ["tracking-queue-depth", "above 50,000 events", "SEV-2"]]),
    ("h2", "First checks"),
    ("p", "Start with the status of the event queue. A queue depth that keeps growing while consumers report "
     "healthy usually means a poison message: find it with the dead-letter inspector and move it aside "
     "before restarting any consumer."),
    ("p", "If the error rate rises right after a deployment, roll back first and investigate afterwards. "
     "Rollback of the tracking API needs no approval when the error rate exceeds five percent; below that, "
     "ask the incident commander before rolling back."),
    ("p", "Database connection errors are almost always caused by the connection pool being exhausted. "
     "Raise the pool size of the affected service to its documented maximum of 80 connections, then look "
     "for the slow query that holds connections open, usually in the shipment history endpoint."),
    ("h2", "Escalation"),
    ("p", "A SEV-2 incident that is not mitigated within thirty minutes is escalated to the engineering manager "
     "on duty. A SEV-1 incident pages the head of engineering immediately and opens a customer status update "
     "on the public status page within fifteen minutes."),
    ("p", "Every SEV-1 and SEV-2 incident gets a written review within five working days. The review is "
     "blameless, lists the timeline and the follow-up actions, and each action has an owner and a due date "
     "that the reliability team tracks until it is closed."),
]

TRAVEL_V1 = [
    ("h1", "Travel Policy"),
    ("p", "Version 1, valid from 1 January 2023. This policy covers business travel by employees of Tern "
     "Logistics and the expenses that the company reimburses."),
    ("h2", "Booking"),
    ("p", "Trains are the default for journeys under five hours. Flights are booked in economy class through "
     "the travel desk at least fourteen days ahead whenever the trip is known that early."),
    ("h2", "Hotels and meals"),
    ("p", "The hotel allowance is 150 euros per night in capital cities and 110 euros per night elsewhere. "
     "Meals are reimbursed up to 45 euros per day with receipts; alcohol is never reimbursed."),
    ("h2", "Claims"),
    ("p", "Expense claims are submitted in the expense tool within thirty days of the end of the trip. Claims "
     "submitted later need the approval of the finance director and are paid in the following month."),
]

TRAVEL_V2 = [
    ("h1", "Travel Policy"),
    ("p", "Version 2, valid from 1 January 2024. This policy covers business travel by employees of Tern "
     "Logistics and the expenses that the company reimburses."),
    ("h2", "Booking"),
    ("p", "Trains are the default for journeys under six hours. Flights are booked in economy class through "
     "the travel desk at least fourteen days ahead whenever the trip is known that early."),
    ("h2", "Hotels and meals"),
    ("p", "The hotel allowance is 170 euros per night in capital cities and 120 euros per night elsewhere. "
     "Meals are reimbursed up to 45 euros per day with receipts; alcohol is never reimbursed."),
    ("h2", "Claims"),
    ("p", "Expense claims are submitted in the expense tool within thirty days of the end of the trip. Claims "
     "submitted later need the approval of the finance director and are paid in the following month."),
]

HTML_PAGES = {
    "web/shipping-rates.html": ("Shipping rates", [
        ("h1", "Shipping rates"),
        ("p", "Rates below apply to parcels booked through the customer portal from 1 February 2024. Prices "
         "are per parcel, exclude VAT and include collection from your premises."),
        ("table", [["Service", "Up to 2 kg", "Up to 10 kg", "Up to 30 kg"],
                   ["Economy (3-5 days)", "4.90", "7.80", "14.50"],
                   ["Standard (2 days)", "6.40", "9.90", "18.20"],
                   ["Express (next day)", "11.20", "16.50", "29.00"]]),
        ("p", "Parcels heavier than 30 kg travel as freight and are quoted individually by the sales team."),
        ("p", "A fuel surcharge is added monthly; in March 2024 it is 6.5 percent of the base rate."),
    ]),
    "web/returns.html": ("Returns", [
        ("h1", "Returns for online shops"),
        ("p", "Tern Returns lets your customers drop a return at any of our 2,300 partner shops without "
         "printing a label: they show the QR code from your returns page and the shop prints the label."),
        ("h2", "How refunds are triggered"),
        ("p", "The refund trigger fires when the parcel is first scanned at the partner shop, not when it "
         "reaches your warehouse, so your customers are refunded up to four days earlier."),
        ("h2", "Prices"),
        ("p", "Each return costs 3.60 euros; shops that send more than 5,000 returns a month pay 2.95 euros."),
    ]),
    "web/api-limits.html": ("API rate limits", [
        ("h1", "API rate limits"),
        ("p", "The Tern API limits requests per API key. A request over the limit gets status 429 and a "
         "Retry-After header that says how many seconds to wait."),
        ("table", [["Endpoint", "Requests per minute", "Burst"],
                   ["/v2/shipments", "600", "100"],
                   ["/v2/tracking", "1200", "300"],
                   ["/v2/labels", "300", "50"],
                   ["/v2/rates", "900", "150"]]),
        ("p", "Limits are counted per key over a sliding window of sixty seconds. Enterprise customers may ask "
         "their account manager for a higher limit on the tracking endpoint."),
        ("p", "Webhook deliveries do not count against your limits."),
    ]),
    "web/careers.html": ("Careers", [
        ("h1", "Work at Tern"),
        ("p", "We are 640 people in six countries building the software that moves parcels across Europe."),
        ("h2", "How we hire"),
        ("p", "Our hiring process has four steps: a call with a recruiter, a take-home exercise that takes "
         "about three hours, a technical interview about your exercise, and a conversation with the team."),
        ("p", "We answer every application within ten working days."),
    ]),
    "web/status.html": ("System status", [
        ("h1", "System status"),
        ("p", "All systems are operational. The tracking API, the customer portal and label printing report "
         "normal response times."),
        ("h2", "Past incidents"),
        ("p", "3 September 2024: the tracking API was unavailable for four hours because a certificate expired "
         "on a load balancer. Tracking events received during the outage were replayed by 18:40 CEST."),
        ("p", "Subscribe to status updates by email or through the RSS feed at the bottom of this page."),
    ]),
    "web/contact.html": ("Contact", [
        ("h1", "Contact us"),
        ("p", "Customer service is open Monday to Friday from 8:00 to 18:00 Central European Time and answers "
         "calls in Dutch, English, French, German, Polish and Portuguese."),
        ("p", "Our head office is at Wilhelminakade 91, 3072 AP Rotterdam, the Netherlands."),
        ("p", "Press enquiries go to the communications team, who reply within one working day."),
    ]),
}

ONBOARDING = [
    ("title", "Onboarding guide for new employees"),
    ("h1", "Your first week"),
    ("p", "On your first day your manager meets you at reception at 9:30 and takes you to collect your laptop "
     "from the service desk. Your accounts are created the Friday before you start."),
    ("li", "Day 1: laptop, accounts and a tour of the office."),
    ("li", "Day 2: security training, which takes about two hours and must be finished in the first week."),
    ("li", "Day 3 to 5: shadowing a colleague in your team."),
    ("h1", "Who to ask"),
    ("table", [["Topic", "Contact", "Channel"],
               ["Laptop and accounts", "Service desk", "#help-it"],
               ["Payroll", "People team", "payroll@tern.example"],
               ["Building access", "Facilities", "#office-rotterdam"]]),
    ("h1", "Probation"),
    ("p", "The probation period lasts three months. Halfway through, you and your manager hold a check-in "
     "meeting, and at the end your manager confirms your contract in writing."),
    ("p", "Every new employee is paired with a buddy from another team for the first two months."),
]

LEAVE = [
    ("title", "Leave policy"),
    ("h1", "Annual leave"),
    ("p", "Full-time employees have 27 days of annual leave per calendar year, plus public holidays of the "
     "country they work in. Up to five unused days may be carried over to the next year and must be taken "
     "before the end of March."),
    ("h1", "Parental leave"),
    ("p", "Tern pays parental leave at full salary for sixteen weeks for every parent, whatever the statutory "
     "minimum in the employee's country."),
    ("h1", "Sick leave"),
    ("p", "Report sickness to your manager before 10:00 on the first day of absence. From the third day a "
     "doctor's note is needed."),
    ("h1", "Unpaid leave"),
    ("p", "Unpaid leave of up to three months can be requested once every three years and needs the approval "
     "of your manager and of the people team."),
]

RELEASE = [
    ("title", "Release process"),
    ("h1", "Release train"),
    ("p", "Services are released on a weekly train that leaves every Tuesday at 11:00. A change must be merged "
     "and green on the main branch by Monday 17:00 to catch the train."),
    ("h1", "Freeze periods"),
    ("p", "No releases happen between 1 December and 6 January except security fixes, because parcel volumes "
     "peak in that period."),
    ("h1", "Hotfixes"),
    ("p", "A hotfix outside the train needs approval from two senior engineers, one of whom must not be in the "
     "team that owns the service."),
    ("table", [["Stage", "Duration", "Gate"],
               ["Canary", "30 minutes", "error rate below 1%"],
               ["25% of traffic", "2 hours", "latency p99 below 800 ms"],
               ["Full rollout", "rest of the day", "none"]]),
]

KICKOFF = [
    ("Q4 Sales Kickoff", ["Rotterdam, 7 October 2024", "Sales and account management"]),
    ("Targets for Q4", ["New annual contract value target: 3.1 million euros",
                        "Focus segments: pharmaceutical cold chain and e-commerce returns",
                        "Every account manager books two customer visits per week"]),
    ("Pricing changes", ["Express prices rise by 4 percent on 1 January 2025",
                         "Returns volume discount starts at 5,000 returns a month",
                         "Multi-year contracts get a fixed fuel surcharge of 5 percent"]),
    ("Pipeline by region", [["Region", "Open deals", "Weighted value (k EUR)"],
                            ["Benelux", "42", "1,260"], ["Poland", "31", "880"],
                            ["France", "18", "540"], ["Portugal", "9", "190"]]),
]

ARCHITECTURE = [
    ("Platform architecture", ["Engineering onboarding deck", "Version of September 2024"]),
    ("Services", ["The shipment service owns bookings and labels",
                  "The tracking service ingests scan events from 2,300 partner shops and 11 hubs",
                  "The route planner runs every night at 02:00 and again at 11:00 for afternoon rounds"]),
    ("Data stores", ["PostgreSQL 16 for shipments, one primary and two replicas per region",
                     "Kafka for scan events, retained for 14 days",
                     "Restricted data lives only in the vault cluster in Frankfurt"]),
    ("On-call", ["Each service team runs its own on-call rotation of one week",
                 "The platform team is second line for every service",
                 "Handover happens on Monday at 10:00 in the #oncall channel"]),
]

BUDGET = {
    "Opex 2024": [["Department", "Budget (k EUR)", "Spent by Q3 (k EUR)"],
                  ["Engineering", "9,400", "7,150"], ["Operations", "21,800", "16,900"],
                  ["Sales", "3,200", "2,480"], ["People", "1,150", "820"]],
    "Capex 2024": [["Project", "Budget (k EUR)"], ["Lyon cold-chain extension", "2,400"],
                   ["Porto line renewal", "1,100"], ["Gdansk scanners", "380"]],
}

README_MD = """# Tern Logistics document set

This folder is the shared drive of Tern Logistics as an employee sees it: policies, reports, web pages,
slides and spreadsheets.

## Conventions

Policies are owned by the team named on their first page and reviewed at least once a year. The
newest version of a policy replaces the older one, but the older file is kept for audits.
"""

ONCALL_MD = """# On-call handbook

## Paging

Pages go to the primary on-call engineer first. If the page is not acknowledged within ten minutes,
it goes to the secondary, and after twenty minutes to the engineering manager on duty.

## Compensation

On-call weeks are paid with a flat allowance of 350 euros per week, plus time off in lieu for every
night that was interrupted by a page between 23:00 and 07:00.
"""

# (id, question, document, excerpt, page hint or None, category)
QUESTIONS = [
    ("sec-01", "How long must a personal account password be?", "handbook/security-policy.pdf",
     "Passwords must be at least fourteen characters long", None, "plain"),
    ("sec-02", "How often are service account passwords rotated?", "handbook/security-policy.pdf",
     "Service account | 32 | every 90 days", None, "table"),
    ("sec-03", "What kind of MFA do kiosk accounts use?", "handbook/security-policy.pdf",
     "Kiosk | 12 | every 30 days | hardware key", None, "table"),
    ("sec-04", "Where are break-glass administrator credentials kept?", "handbook/security-policy.pdf",
     "credentials are sealed in the office safe in Rotterdam", None, "plain"),
    ("sec-05", "How quickly must a lost laptop be reported?", "handbook/security-policy.pdf",
     "must be reported to the service desk within four hours", None, "plain"),
    ("sec-06", "Where is a removable storage exception logged?", "handbook/security-policy.pdf",
     "which expires after seven days and is logged in the device registry together with the ticket number",
     None, "page-break"),
    ("sec-07", "Where may payment card data be stored?", "handbook/security-policy.pdf",
     "may only be stored in the vault cluster in the Frankfurt region", None, "plain"),
    ("sec-08", "Within how long is a breach of restricted data reported to the authority?",
     "handbook/security-policy.pdf", "within seventy-two hours of its discovery", None, "plain"),
    ("sec-09", "What is the security hotline extension?", "handbook/security-policy.pdf",
     "calling the security hotline on extension 4400", None, "plain"),
    ("sec-10", "How far away may an exception's expiry date be?", "handbook/security-policy.pdf",
     "an expiry date no more than one year away", None, "boilerplate"),
    ("ops-01", "How many parcels did Gdansk handle in Q3?", "reports/q3-operations-report.pdf",
     "Gdansk | 1,215 | 94.7% | +12%", 1, "table"),
    ("ops-02", "What was Lyon's on-time rate in Q3?", "reports/q3-operations-report.pdf",
     "Lyon | 730 | 97.9% | +1%", 1, "table"),
    ("ops-03", "Why did Porto's volume fall?", "reports/q3-operations-report.pdf",
     "the regional grocery customer moved its returns flow to a competitor in July", None, "plain"),
    ("ops-04", "By how much did the route planner cut distance per van?", "reports/q3-operations-report.pdf",
     "It cut the average distance per delivery van by eleven percent", 2, "two-column"),
    ("ops-05", "When did the fix for hospital delivery windows ship?", "reports/q3-operations-report.pdf",
     "The fix shipped on 19 August", 2, "two-column"),
    ("ops-06", "What caused the tracking API outage on 3 September?", "reports/q3-operations-report.pdf",
     "caused by an expired certificate on the load balancer in front of the tracking service", 2, "two-column"),
    ("ops-07", "How many extra pickers does Rotterdam hire for the season?", "reports/q3-operations-report.pdf",
     "Rotterdam follows on 28 October with ninety", 2, "two-column"),
    ("ops-08", "What is the budget of the Lyon cold-chain extension?", "reports/q3-operations-report.pdf",
     "is budgeted at 2.4 million euros", 3, "plain"),
    ("ops-09", "Why does the board want monthly updates on the cold-chain extension?",
     "reports/q3-operations-report.pdf", "the building permit is still pending with the city of Lyon", 3,
     "boilerplate"),
    ("run-01", "What severity is a tracking queue depth alert?", "engineering/incident-runbook.pdf",
     "tracking-queue-depth | above 50,000 events | SEV-2", None, "table"),
    ("run-02", "At what p99 latency does the tracking latency alert fire?", "engineering/incident-runbook.pdf",
     "tracking-latency-p99 | above 1500 ms for 10 minutes", None, "table"),
    ("run-03", "What should I do when the queue keeps growing but consumers look healthy?",
     "engineering/incident-runbook.pdf", "find it with the dead-letter inspector and move it aside", None, "plain"),
    ("run-04", "When can the tracking API be rolled back without approval?", "engineering/incident-runbook.pdf",
     "Rollback of the tracking API needs no approval when the error rate exceeds five percent", None, "plain"),
    ("run-05", "What is the maximum connection pool size?", "engineering/incident-runbook.pdf",
     "to its documented maximum of 80 connections", None, "plain"),
    ("run-06", "Who is paged for a SEV-1 incident?", "engineering/incident-runbook.pdf",
     "A SEV-1 incident pages the head of engineering immediately", None, "plain"),
    ("run-07", "How soon after an incident is the written review due?", "engineering/incident-runbook.pdf",
     "gets a written review within five working days", None, "plain"),
    ("run-08", "Who tracks the follow-up actions of an incident review?", "engineering/incident-runbook.pdf",
     "the follow-up actions, and each action has an owner and a due date that the reliability team tracks",
     None, "page-break"),
    ("trv-01", "What was the hotel allowance in capital cities under the 2023 travel policy?",
     "handbook/travel-policy-v1.pdf", "The hotel allowance is 150 euros per night in capital cities", 1,
     "duplicate"),
    ("trv-02", "What is the hotel allowance in capital cities under the 2024 travel policy?",
     "handbook/travel-policy-v2.pdf", "The hotel allowance is 170 euros per night in capital cities", 1,
     "duplicate"),
    ("trv-03", "Up to how many hours of journey is the train the default in 2024?", "handbook/travel-policy-v2.pdf",
     "Trains are the default for journeys under six hours", 1, "duplicate"),
    ("trv-04", "Within how many days must expense claims be submitted?", "handbook/travel-policy-v1.pdf",
     "Expense claims are submitted in the expense tool within thirty days of the end of the trip", None,
     "duplicate"),
    ("web-01", "How much does Express shipping cost for a 10 kg parcel?", "web/shipping-rates.html",
     "Express (next day) | 11.20 | 16.50 | 29.00", None, "table"),
    ("web-02", "How are parcels over 30 kg priced?", "web/shipping-rates.html",
     "Parcels heavier than 30 kg travel as freight and are quoted individually", None, "plain"),
    ("web-03", "What is the fuel surcharge in March 2024?", "web/shipping-rates.html",
     "in March 2024 it is 6.5 percent of the base rate", None, "boilerplate"),
    ("web-04", "Do customers need to print a return label?", "web/returns.html",
     "drop a return at any of our 2,300 partner shops without printing a label", None, "boilerplate"),
    ("web-05", "When is a return refunded?", "web/returns.html",
     "The refund trigger fires when the parcel is first scanned at the partner shop", None, "plain"),
    ("web-06", "What does a return cost for a large shop?", "web/returns.html",
     "shops that send more than 5,000 returns a month pay 2.95 euros", None, "boilerplate"),
    ("web-07", "What status code does the API return over the limit?", "web/api-limits.html",
     "A request over the limit gets status 429", None, "plain"),
    ("web-08", "What is the rate limit of the labels endpoint?", "web/api-limits.html",
     "/v2/labels | 300 | 50", None, "table"),
    ("web-09", "Do webhook deliveries count against API limits?", "web/api-limits.html",
     "Webhook deliveries do not count against your limits.", None, "boilerplate"),
    ("web-10", "How long does the take-home exercise take?", "web/careers.html",
     "a take-home exercise that takes about three hours", None, "plain"),
    ("web-11", "How quickly does Tern answer job applications?", "web/careers.html",
     "We answer every application within ten working days.", None, "boilerplate"),
    ("web-12", "By when were tracking events from the September outage replayed?", "web/status.html",
     "were replayed by 18:40 CEST", None, "plain"),
    ("web-13", "How can I subscribe to status updates?", "web/status.html",
     "Subscribe to status updates by email or through the RSS feed", None, "boilerplate"),
    ("web-14", "In which languages does customer service answer calls?", "web/contact.html",
     "answers calls in Dutch, English, French, German, Polish and Portuguese", None, "plain"),
    ("web-15", "What is the address of the head office?", "web/contact.html",
     "Wilhelminakade 91, 3072 AP Rotterdam", None, "plain"),
    ("web-16", "How fast does the communications team reply to the press?", "web/contact.html",
     "Press enquiries go to the communications team, who reply within one working day.", None, "boilerplate"),
    ("hr-01", "What time do new employees arrive on their first day?", "hr/onboarding.docx",
     "your manager meets you at reception at 9:30", None, "plain"),
    ("hr-02", "How long does security training take?", "hr/onboarding.docx",
     "security training, which takes about two hours", None, "plain"),
    ("hr-03", "Where do I ask about building access?", "hr/onboarding.docx",
     "Building access | Facilities | #office-rotterdam", None, "table"),
    ("hr-04", "How long is the probation period?", "hr/onboarding.docx",
     "The probation period lasts three months.", None, "plain"),
    ("hr-05", "How long is a new employee paired with a buddy?", "hr/onboarding.docx",
     "paired with a buddy from another team for the first two months", None, "plain"),
    ("hr-06", "How many days of annual leave do full-time employees get?", "hr/leave-policy.docx",
     "Full-time employees have 27 days of annual leave per calendar year", None, "plain"),
    ("hr-07", "How many weeks of parental leave does Tern pay?", "hr/leave-policy.docx",
     "at full salary for sixteen weeks for every parent", None, "plain"),
    ("hr-08", "From which day of sickness is a doctor's note needed?", "hr/leave-policy.docx",
     "From the third day a doctor's note is needed.", None, "plain"),
    ("hr-09", "How often can unpaid leave be requested?", "hr/leave-policy.docx",
     "can be requested once every three years", None, "plain"),
    ("eng-01", "When does the weekly release train leave?", "engineering/release-process.docx",
     "a weekly train that leaves every Tuesday at 11:00", None, "plain"),
    ("eng-02", "When is the release freeze?", "engineering/release-process.docx",
     "No releases happen between 1 December and 6 January except security fixes", None, "plain"),
    ("eng-03", "Who approves a hotfix outside the release train?", "engineering/release-process.docx",
     "needs approval from two senior engineers", None, "plain"),
    ("eng-04", "How long does the canary stage last?", "engineering/release-process.docx",
     "Canary | 30 minutes | error rate below 1%", None, "table"),
    ("sls-01", "What is the new annual contract value target for Q4?", "sales/q4-kickoff.pptx",
     "New annual contract value target: 3.1 million euros", 2, "slide"),
    ("sls-02", "By how much do Express prices rise in January 2025?", "sales/q4-kickoff.pptx",
     "Express prices rise by 4 percent on 1 January 2025", 3, "slide"),
    ("sls-03", "What fuel surcharge do multi-year contracts get?", "sales/q4-kickoff.pptx",
     "Multi-year contracts get a fixed fuel surcharge of 5 percent", 3, "slide"),
    ("sls-04", "How many open deals are there in Poland?", "sales/q4-kickoff.pptx",
     "Poland | 31 | 880", 4, "table"),
    ("arc-01", "When does the route planner run?", "engineering/architecture-overview.pptx",
     "runs every night at 02:00 and again at 11:00", 2, "slide"),
    ("arc-02", "How long are scan events kept in Kafka?", "engineering/architecture-overview.pptx",
     "Kafka for scan events, retained for 14 days", 3, "slide"),
    ("arc-03", "How many replicas does PostgreSQL have per region?", "engineering/architecture-overview.pptx",
     "one primary and two replicas per region", 3, "slide"),
    ("arc-04", "When is the on-call handover?", "engineering/architecture-overview.pptx",
     "Handover happens on Monday at 10:00 in the #oncall channel", 4, "slide"),
    ("fin-01", "What is the 2024 engineering opex budget?", "finance/budget-2024.xlsx",
     "Engineering | 9,400 | 7,150", None, "table"),
    ("fin-02", "What is the capex budget of the Porto line renewal?", "finance/budget-2024.xlsx",
     "Porto line renewal | 1,100", None, "table"),
    ("md-01", "Who owns a policy?", "README.md",
     "Policies are owned by the team named on their first page", None, "plain"),
    ("md-02", "Who is paged after the secondary on-call engineer?", "engineering/oncall.md",
     "after twenty minutes to the engineering manager on duty", None, "plain"),
    ("md-03", "What is the on-call allowance per week?", "engineering/oncall.md",
     "a flat allowance of 350 euros per week", None, "plain"),
]
