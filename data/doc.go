// Package data is the data layer of the Sentry gate: profiles of user facts, later
// interactions that agree with or contradict them, the (interaction, fact) pairs the gate is
// trained on, and their train/val/test splits. It can load such data, check it, and generate
// it synthetically as the A-TMA paper does.
//
// # Schema
//
// A dataset is a directory with two files, profiles.jsonl and interactions.jsonl: one JSON
// object per line, or one JSON array of objects (the first character that is not white
// space decides). The JSON Schema documents (draft 2020-12) are embedded in the package —
// ProfileSchema and InteractionSchema — and live in data/schema/.
//
// A profile:
//
//	{"id": "p001", "facts": [
//	  {"slot_key": "job", "topic_key": "work", "category": "job",
//	   "value": "nurse at Riverside Hospital", "text": "I work as a nurse at Riverside Hospital."},
//	  {"slot_key": "pet.1", "topic_key": "pets", "category": "pets",
//	   "value": "Rex (dog)", "text": "I have a dog called Rex."}]}
//
//	field               type      required  meaning
//	id                  string    yes       profile id, unique in the file; [A-Za-z0-9][A-Za-z0-9_.:-]*
//	facts               array     yes       at least one fact
//	facts[].slot_key    string    yes       the attribute the fact fills, unique in the profile; [a-z0-9][a-z0-9_.-]*
//	facts[].topic_key   string    yes       the broader topic; slots may share one (two pets: "pets")
//	facts[].category    string    yes       job, location, relationship, pets, hobbies, likes_dislikes, numerical
//	facts[].value       string    yes       the fact in short form
//	facts[].text        string    yes       the fact as the user said it
//
// An interaction:
//
//	{"id": "i0001", "profile_id": "p001", "slot_key": "job",
//	 "text": "I left Riverside Hospital last month and now I work as a pharmacist at Crescent Pharmacy.",
//	 "relation": "conflicting", "update_type": "temporal_update",
//	 "value": "pharmacist at Crescent Pharmacy", "family": "job/direct"}
//
//	field        type    required  meaning
//	id           string  yes       interaction id, unique in the file; splits go by it
//	profile_id   string  yes       an existing profile
//	slot_key     string  yes       an existing slot of that profile
//	text         string  yes       what the user said
//	relation     string  yes       consistent or conflicting, with the slot's fact
//	update_type  string  yes       the slot category's update type, or implicit_violation
//	value        string  no        what the text asserts, in the fact's short form
//	family       string  no        the phrasing family, category/style ("job/reported")
//
// The update type follows the category: job and location → temporal_update, relationship
// and pets → explicit_negation, numerical → value_discrepancy, hobbies and likes_dislikes →
// scope_mismatch. implicit_violation marks a conflict stated only by implication ("I'm
// vegetarian" vs "had a great steak last night") and may occur in any category; consistent
// interactions carry the update type they would have if they conflicted.
//
// Unknown fields are errors. LoadProfiles, LoadInteractions and Load report every problem at
// once in a *LoadError, each located by file, line and field:
//
//	profiles.jsonl:12: facts[3].category: unknown category "sports" (want job, location, …)
//	interactions.jsonl:40: slot_key: profile "p007" has no slot "pet.2"
//
// Dataset.Validate does the same checks on data in memory, locating problems as
// profiles[i].facts[j].field. Dataset.Write writes each file atomically, and Dataset.Hash is
// the sha256 of the canonical JSON, for checkpoints to record.
//
// # Generation
//
// Generate draws a dataset from a seeded generator (GenConfig; the zero value gives the
// paper's 50 profiles × 10 facts and 1,000 interactions, half of them conflicting). Each
// profile has one fact of every category, then more likes/dislikes, numerical facts, hobbies
// and pets. Interactions are spread evenly over the categories and profiles.
//
// Texts come from phrasing families: a family is one style in one category — direct
// statements, reported speech ("My sister says I …"), recall ("As I told you, …"), small
// narratives, casual chat, and implicit statements — with at least two templates per
// relation, and at least eight per category and relation. Values come from large pools
// (over 50 cities, over 45 job titles and as many employers, 14 pet species and over 40 pet
// names, over 50 partner names, 35 hobbies, over 75 liked or disliked things, three diets,
// fourteen numerical slots written in digits or words), and one interaction in ten gets a
// filler sentence or chat casing. A text already written is drawn again, so texts hardly
// repeat. The same GenConfig always gives the same dataset, byte for byte.
//
// GenConfig.Echo adds the echo families (job, location, hobbies, numerical): conflicts that
// repeat the wording of the fact's own templates with only the value changed ("I live in
// {new_city}."), and consistent lines that restate the fact in other words — the hard case
// for a gate that compares embeddings.
//
// Adding a family — for instance more implicit violations for the Judge audit set — is one
// literal in families.go: a category, a style, the update type if it is not the category's,
// templates for each relation over the placeholders of that category, and optionally which
// facts it can talk about. ImplicitRate turns the implicit families on.
//
// # Pairs and splits
//
// BuildPairs makes the paper's two pairs per interaction: with the fact of its own slot
// (y_top 1; y_log 1 if consistent, 0 if conflicting) and with one irrelevant fact of the same
// profile drawn from another topic (y_top 0, y_log 0). Split assigns interactions — never
// separating the pairs of one — to train, val and test (80/10/10 by default), stratified by
// update type × relation. Phrasing families can be held out (SplitConfig.HoldOutFamilies, by
// family or style, or HoldOutFraction): their interactions go only to the HeldOut split, so
// evaluation can report unseen wording next to the ordinary test split. ValFamilies and
// ValFamilyFraction do the same for the validation split: those families' interactions go to
// Val only, so thresholds calibrated on Val are checked on wording the model never saw
// (after the held-out families are drawn, and without changing them). A split that is empty
// or lacks a class is an error naming the split and what it lacks (ErrDegenerateSplit).
//
// Randomness is always a seed in a configuration or a *rand.Rand (math/rand/v2) passed in;
// nothing in the package uses global random state. Nothing in it is safe for concurrent
// modification, but a Dataset may be read from several goroutines.
package data
