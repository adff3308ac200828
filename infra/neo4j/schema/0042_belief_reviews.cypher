// Session reviews (issue 16, epistemic-memory article component 8): one per reviewed session,
// identity (scope, id) like every stored thing; the context reads the open one by status.
CREATE CONSTRAINT belief_review_scope_id IF NOT EXISTS
FOR (r:BeliefReview) REQUIRE (r.scope, r.id) IS UNIQUE;

CREATE INDEX belief_review_scope_status IF NOT EXISTS
FOR (r:BeliefReview) ON (r.scope, r.status);
