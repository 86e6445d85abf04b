// The opening of every statement that changes assets or relationships: the next number of the
// change counter, held (locked) until the transaction commits, so that change numbers are given in
// commit order. An entity changed by the statement gets txSeq * 1000000 + its row's place as its
// changeSeq: what GET /changes reads in order.
MERGE (counter:ChangeCounter {name: 'changes'})
ON CREATE SET counter.seq = 0
SET counter.seq = counter.seq + 1
WITH counter.seq AS txSeq
