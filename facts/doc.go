// Package facts turns memories into facts with subjects and open slot keys: the unit the
// overlay's version groups are built from. A memory yields zero or more facts — subject,
// attribute, value, polarity (is / is no longer), scope and the event time when the text
// states one — and a memory that states none (small talk, a one-off event, a question)
// yields none, with Result.Why saying so. A fact's slot key is "<subject>/<attribute>" in
// kebab case ("user/home", "theo/hobby", "mobile-team/project"): human-readable, stable
// (Kebab is idempotent) and different for different subjects, so that facts about the
// speaker's sister and about the speaker never share a version group.
//
// # Extractors
//
// Two extractors implement Extractor. The inputs of one call are one user's memories in
// arrival order: each input sees the slots produced for earlier inputs of the call
// (besides its own Input.Slots, the user's nearest existing keys) and a pronoun resolves
// to the last third party named before it.
//
// Offline needs no model download: rules for the parts that are about form and the
// backbone's sentence embeddings (an Embedder, *onnx.Encoder) for the part that is
// about meaning, in one batched Embed call per Extract (the attribute prototypes are
// embedded once, with the first call).
//
//   - A "Name: " prefix makes first person that speaker (subject "caroline"); otherwise
//     first person is "user". A prefix that names an attribute is a label, not a
//     speaker: "Home: a flat in Richmond", "My job: translator at Bluewater Clinic",
//     "Theo's hobby these days: bouldering" state that attribute, with the value read
//     after the colon by its kind. Bracketed asides ("[shares an image: …]") are left
//     out: they describe, they state nothing.
//   - A memory with a question (a sentence that ends in "?" and asks: "how", "is it",
//     "red or green?") states no fact.
//   - Sentences are split into clauses at commas and at conjunctions that start a new
//     statement; each clause gets a subject: first person; "my sister" → sister, "my
//     brother joris" → joris, "my manager is Dana" → the user's manager; a name at the
//     start of a clause, capitalised or not ("kwame moved to glasgow"); a pronoun → the
//     last person named; a described group ("the mobile team" → mobile-team, "the
//     project"; a bare "sync" is the product-sync of an existing slot); reported speech
//     ("mum says he's …") is read for what is reported. A capitalised word that a noun
//     follows opens a noun phrase, not a name ("Mental health's a priority"): such a
//     clause is nobody's fact unless it speaks in the first person.
//   - The attribute is found by meaning: each clause (and, with a quarter of the weight,
//     its whole memory) is compared with short prototype sentences of each attribute of
//     the table in attributes.go, a cue word adds a small bonus, and the best attribute
//     whose kind of value (a place, a name, an amount, a clock time, a date, days, a
//     phrase) the clause holds wins. A clause that is closer to the small-talk and event
//     prototypes than to any attribute, or scores under Config.MinScore, states nothing.
//     An existing slot of the same subject — produced earlier in the call, or given in
//     Input.Slots, whose attribute words are embedded too — takes the fact when the
//     clause is as close to it as to the best attribute, so unseen wording lands in the
//     group it belongs to and keys given by another extractor are reused.
//   - A value read by meaning must have the shape of its kind. The verbs that open a
//     phrase are passed over ("got bumped to senior backend developer" → "senior
//     backend developer"); a value with no content word, one that only names an
//     attribute, and one shaped like a clause ("I'll reach my goals" → "reach",
//     "getting ready", "Since", "something I've wanted", "prius broke down") is no value
//     where the attribute wants a thing, a place, an organisation or a name; in text
//     whose writer uses capitals, a place, organisation or name in lower case is none
//     either ("home = bench"). A clause whose subject would be a verb ("Fixing cars is
//     such an art", "Look at this") has none of its own. Nor is a thing made only of
//     abstract words a value ("work", "progress", "a big breakthrough"), nor one in which
//     the attribute's own name modifies another word ("car shop", "job training"; but
//     "estate car", "room 12"). Long chat turns otherwise give
//     each an attribute and a version group they do not have (LoCoMo's commits
//     261 → 120 → 75 with these shapes, docs/benchmarks.md).
//   - A fact read by meaning has the score of its attribute as its confidence, scaled
//     by 0.8 in a message of more than 30 words: one clause of a long turn of chat that
//     resembles a state is weaker evidence than a short message that says only that.
//   - Form decides some attributes outright (rules.go; the readers are one ordered
//     table, formReaders in offline.go, the first that finds a fact decides): a job
//     title ("works as a nurse at …", "a freelance illustrator", "works in finance"), a
//     home ("relocated from Reno to Denver", "we're in a 3 bed semi now", "moved back in
//     with mum and dad"), a team ("got moved to the ml team"), a partner, named pets,
//     labelled statements, a course by its qualification ("doing an MA in history",
//     "dropped out of the MA"), a household service's provider in the service's own
//     slot (energy-supplier, broadband, mortgage, car-insurance: "we use octopus for
//     electricity"), a car by its make, a bank, a named tool, a supermarket, a book
//     being read, an age ("my son is 6", "gran turned 90"), a school year, a wake-up time
//     and a bedtime, a regular service's clock time ("the 8:10 train": train-time), and
//     how often an activity is done (<activity>-frequency: only where no activity is
//     read by form and no amount is said with the period, "runs 10 km every morning"
//     being a distance), an email address in any clause, a thing of the speaker's
//     switched from one provider to another ("moved my current account from Barclays
//     to Monzo": the bank) and an amount paid into one ("putting 5% into my 401k").
//   - Medicines by their generic names' stems (amlodipine, ramipril, atorvastatin,
//     sertraline, …; drugFacts): each a medication (several at once), one given up
//     ("swapped me off the amlodipine onto ramipril 2.5mg") denied, each dose in the
//     medicine's own slot (<medicine>-dose), so one medicine's dose never replaces
//     another's; after "allergic" a medicine is an allergy. Amounts of sleep, doses,
//     commutes, distances and heights are said with their units ("4 nights" is no sleep).
//   - A value whose attribute goes unnamed takes the speaker's one slot whose newest
//     value has its kind (a day, a clock time, a date): an exception ("except on bank
//     holiday weeks it's tuesday": a scoped value, judged a scoped exception), a
//     correction ("nope, it's june 14th") or a change with no fact read by form ("ours go
//     out thursdays from now on"). Two such slots leave it unread.
//   - A role's holder who acts or is described is the holder's subject ("my husband
//     works at Tesco", "my partner's vegetarian"), while "my manager is Dana" names the
//     user's manager; a dislike ("can't stand olives") is the negated liking, so that a
//     later liking changes the group.
//   - A fact read by meaning in the speaker's name goes to the one third party the
//     memory names who has a slot of that attribute, when the speaker has none ("first
//     day at oakfield primary for leo" is leo's school).
//   - A change told by a slot's value: a memory that names a value of an existing slot
//     and goes "back to" another, takes another "instead", switches ("switched from
//     vodafone to giffgaff", "the gp switched me to rosuvastatin") or moves a time ("raj
//     moved standup to 10") gives that slot the new value, by form.
//   - Open slots told by their label: "my <label> is <value>" with a label outside the
//     table and no relation or role is an attribute of its own ("my bank is monzo": bank;
//     "my running shoes are the nike pegasus"); a favourite is one of its kind
//     (favourite-band beside favourite-food), and an existing favourite slot takes only
//     clauses that say favourite. A label the table has a cue for ("my camera is …": a
//     device) is read by meaning (rules.go, ownLabel). Without "my": a noun by its form
//     ("payday is the 25th"), or any thing with "on" or "at" and a day, date or time
//     ("stats exam is on june 12").
//   - Schedules (schedule.go): an event's day and clock time are <event>-day and
//     <event>-time of its owner ("my pilates class is on mondays at 6pm", "the council
//     moved recycling to fridays", "leo's pickup is 3:15", "my physio appointments are
//     wednesdays at 10"); a generic word ("training's moved to wednesdays") is the one
//     event of that kind the user has, an event said without its owner the one who has
//     it. One day ("last day at Halden is Friday") is no schedule.
//   - Someone else changing a thing of the speaker's ("landlord put the rent up to
//     1,750", "gp upped my sertraline") or of the one named before ("the doctor doubled
//     his metformin") states the owner's fact.
//   - A thing given up names the denied value ("gave the old iphone to my mum", "stopped
//     the 5:2" of "5:2 diet", "Alfie's left Little Stars", not "can't stop writing" nor a
//     left knee); a slot named by its attribute in a denial ("someone nicked my bike")
//     ends whatever value it holds; a job ends untold ("dad's retired", "I lost my job");
//     a change names an earlier value by its head ("traded the focus in for a yaris").
//   - Everyday forms of their own (session 16): the speaker and someone named as a
//     couple ("marco and i broke up", "me and my boyfriend marco are …"); seeing someone
//     about care is a doctor ("seeing Sunita at the clinic"); how someone commutes
//     (commute-mode), working days (work-days), when a document runs out
//     (<thing>-expiry); subscriptions by brand ("cancelled netflix"); a number moved to
//     another network; flatmates named ("living w ben and jo"); a named animal said to
//     be the speaker's pet by kind or breed; an amount said to go up or down to a new one
//     by its label ("my take-home goes up to £2,710"), or put there by someone's verb of
//     change (changingVerbs: "landlord's putting the rent up to £1,140"); an open label
//     before an amount or a clock time ("savings goal: £6,000"); a title and a surname
//     as one subject (mrs-osei); a relation and its name set off by commas as one clause
//     ("My husband, David, works …"); chat's "w" and "w/", and a known name's possessive
//     without its apostrophe ("alfies teacher"). A form reader whose value only names
//     its attribute leaves the clause to the readers after it.
//   - Who holds a role, and who takes it over (session 17): one who leaves a role and one
//     who covers it ("abena's off on secondment, Marcus is covering as my manager",
//     coverName); a role and its holder's name set off by a comma, for any subject
//     ("anika has a new boyfriend, Rory", apposedNames); the holder of the speaker's
//     one-holder role named on the way ("my boyfriend tom loves climbing"), after the
//     memory's own facts. A clause without a subject of its own goes on with its
//     sentence's ("she's on sertraline too, has been for years, 150mg", fragment); one
//     who tells the speaker something tells of themselves ("mum told me she's on …"); a
//     past "when" clause is a time, not a scope. A switch ends among several values the
//     one the memory names, or the same kind of music service (switchedAway); a dose
//     told without its medicine is the speaker's one dosed medicine's (oneDose), and a
//     number a surer fact states is no second fact (readByForm). A bare label with a
//     capitalised value ("hilton status is Gold") or a number after "on"; a question
//     asked without its question mark states nothing (askedPlainly).
//   - A state ended by its name (ended.go, session 20): a clause whose form ends a thing
//     or a person named in it — after a verb of ending ("cancelled the Amex", "stopped
//     the Duolingo Spanish", "switching from Aetna to Cigna", "someone nicked the
//     Peugeot"), before a predicate of ending ("bex left??", "Graham's gone on
//     sabbatical", "the fiddle leaf fig has died", "payments migration shipped", "the
//     Anantara was only in my basket"), or after "no more", "instead of" — denies that
//     name. A name must be specific (a word of three letters or more that is no common
//     word), an ending denied or a remainder ("only peanuts is left") is none. The denial
//     is of the slot the user has that holds the name, else of the one sure fact the
//     memory states beside it (the state that replaces it: "new manager is tariq"), else
//     of the subject's "named" state, a multi-valued attribute whose group is the name
//     itself; a fact the form read with the same name is denied in place, one the
//     meaning read surely is made certain, and a guess of the meaning with that name
//     gives way. The overlay gives the denial to the earlier memory that names the state
//     (its namedVersions), so the state ends however that memory was worded. Measured on
//     sets written for the purpose: of 67 such names whose earlier memory exists, 58 end
//     what the annotation says they end.
//   - How long a document holds, said apart from its name ("picked up the new passport,
//     valid till 2035", validUntil), and a document that runs out in a bare year; a
//     document's name at the start of a clause is nobody's name ("passport expires in
//     June 2025" is the speaker's).
//   - Session 22's forms: a loyalty scheme's tier, one slot whatever the scheme
//     (loyalty-status: "FINALLY silver on ba exec club", "Skyward knocked me down to
//     Silver"); a language level on the CEFR scale (language-level: "I'm a solid A2
//     now", "in the B1.1 course", not "passed the A2 exam"); a work shift (shift: "he's
//     on nights", "changed to day shifts"); who does which chore (chores.go: "I'm on
//     laundry", "Kit does the hoovering"); when one who serves the household comes, the
//     role's slot (visits.go, <role>-visits: "our cleaner Ana comes every other
//     friday"); a bank known by its name alone ("been with Barclays since I was
//     sixteen"); a setting ("thermostat stays on 19"). A value said to have ended
//     (Input.Ended) is taken up again by name ("back on YNAB", "resubscribed to YNAB");
//     "X isn't in A, it's B" corrects A. Politeness and memory commands ("Please note
//     that", "Note to self", "update your notes") open a clause without being its
//     subject, or are no clause at all. A slot of dates (ValueFits) takes no value that
//     is no date, and of two slots of one kind a value joins the one the text names.
//   - Session 25's forms: more endings by name — notice given ("gave notice at Rush"),
//     a job packed in, a car written off, an imperative "cancel Calgary", "given up on
//     Ronan", "shifted from TIME", a goodbye ("ta ta Telstra"), "stopped covering the
//     Flovent generic" (the name after the verb it stops), and of the one named before
//     the verb: gone ("the Hilux is gone", named with a capital; not "gone back to", "gone and got" nor "my voice is gone"), gone
//     bust, under or into administration, closed or shut down, withdrawn or cancelled
//     ("YouTube TV is cancelled"), "went on medical leave", "finished up friday". A
//     currency or a unit before an amount is nobody ("KSh 18,000": amountShaped), and a
//     clause opened by an amount goes on with the subject of the clause before when that
//     one pays, rents or earns ("my brother Kevin rents in Rongai, KSh 9,000 for a one
//     bedroom"; paidAmount); the exclamations of other Englishes
//     and of chat ("Wah", "Haiz", "Eish", "yikes") are nobody either; a name's accents
//     fold to one key by their canonical decomposition ("Thảo" → thao); one who serves
//     the speaker changes the speaker's bare attribute ("Landlord has increased rent to
//     13,500"). An amount the meaning read as a price, a bill or a rent beside the one
//     service the memory names is that service's price, "<service>-price" ("wifi is
//     virgin, £30 a month": broadband-price; servicePrice), a slot no other amount slot
//     takes (PricesService). A role's word as a label names who holds it ("advisor:
//     Prof. Halvorsen", "cleaner: Marta"); "<name> is our <role>" reads as "my" does
//     ("Priya is our new landlord"), and a doctor's title before a name said to be
//     someone is one subject ("Dr Mbeki is my advisor"), while "Dr Wanjiru has added a
//     Seretide preventer" stays the speaker's state. A medicine given up ends its own
//     dose slot's last dose (endedDoses: "she's stopping the atorvastatin" ends
//     "atorvastatin-dose = 40mg"), and a slot of amounts, a dose or a price takes only a
//     value with a number in it (ValueFits: "practice nurse" is no dose). A household
//     service's slot is named by the service whatever word the memory calls it by
//     (serviceAttributes: "electricity: Electric Ireland" is the energy supplier), and
//     a plural names the same thing as its singular ("seminars" and "seminar-day",
//     SharesTopic). A habit's days before the event they narrow are its scope
//     ("mondays standup is 10:00": on mondays), and so is one week said as one ("for
//     that week only", "Memorial Day week"); an event said before its clock time with no
//     verb is a schedule when said as a habit ("standup 9:00 ET daily", not "dinner 7pm
//     at Luca's"). A name asked to be called by is the preferred name with a title too
//     ("you may as well call me Ruth", "that you call me Mrs. Abernathy"), and a
//     greeting asked as a question ("How do you do.", "hi, how are you?") asks nothing:
//     the memory around it still states its facts. A capitalised word that opens a
//     clause and is said to be a percentage or a sum of money is a thing, not a name
//     ("Commission is 8% on new logos": the speaker's commission; "Mia is 7" stays an
//     age). A form of address before a first name leaves the name the subject ("Kuya
//     Paolo moved", "Aunt Ruth rang": paolo, ruth, as "my aunt Ruth" reads), and "Herr"
//     and "Frau" are titles as "Mrs" is.
//   - A plan's month is when the planned thing happens, not when the fact became true
//     ("we're going to crete in july"): no event time for a trip, a flight, a stay or an
//     event dated ahead.
//   - Negation ("sold", "no longer", "don't … anymore", "split up"), scope ("except on
//     fridays", "only when I travel") and event time ("back in March", "since april",
//     "from the 1st of july", "last month", resolved against Input.Time) are read from
//     the clause.
//
// SingleValued says which attributes hold one current value (home, employer, manager,
// partner, …) and which hold several (pets, hobbies, languages, allergies,
// subscriptions, …).
//
// LLM asks a language model through the llm package's client for JSON that follows
// Schema, showing it the existing slot keys so that it reuses them, and falls back to
// the offline extractor on a timeout, a transport or server error, or an answer that is
// not that JSON; Result.Why says why. A wrong model name or bad credentials are
// returned as errors.
//
// # Why rules and not a library
//
// The pure-Go tagger that could chunk noun phrases (github.com/jdkato/prose) is archived,
// was trained on edited prose rather than lower-case chat, and would still leave subject
// resolution, polarity, scope and slot reuse to us; a model-based tagger would be a
// second model download, which the offline extractor exists to avoid.
// The rules here are small and tested clause class by clause class; the meaning-bearing
// step is the backbone's.
//
// # Evaluation
//
// bench.EvalFacts scores an extractor against the hand-written corpus
// (`atma bench facts --split dev`): states-a-fact, subjects, values, polarity, scope,
// event time and slot grouping, per domain.
package facts
