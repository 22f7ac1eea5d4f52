package dev.quota.redis.internal.keystate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ColdStatesTest {

    private static final long LATER = 1_000_000L;

    @Test
    void withinTheBound_everyRecordPutIsFound_throughRemovalsAndGrowth() {
        // records of five lengths, so removals move records within each length's slab too
        ColdStates cold = new ColdStates(100_000);
        Map<Long, long[]> model = new HashMap<>();
        SplittableRandom random = new SplittableRandom(3);
        for (int op = 0; op < 200_000; op++) {
            // few distinct fingerprints, with low bits alike, so probes run long and removals move records
            long fingerprint = 1 + ((long) random.nextInt(5_000) << 10);
            if (random.nextInt(4) == 0) {
                cold.remove(fingerprint);
                model.remove(fingerprint);
            } else {
                long[] rec = record(op, LATER);
                cold.put(fingerprint, rec, 0);
                model.put(fingerprint, rec);
            }
        }

        assertThat(cold.size()).isEqualTo(model.size());
        for (long fingerprint = 1; fingerprint < (5_000L << 10); fingerprint += 1 << 10) {
            assertThat(cold.get(fingerprint, 0)).isEqualTo(model.get(fingerprint));
        }
    }

    @Test
    void pastTheBound_sizeStaysAtIt_andWhatIsFoundIsWhatWasLastPut() {
        ColdStates cold = new ColdStates(1_000);
        Map<Long, long[]> model = new HashMap<>();
        SplittableRandom random = new SplittableRandom(5);
        for (int op = 0; op < 50_000; op++) {
            long fingerprint = 1L + random.nextInt(3_000);
            long[] rec = record(op, LATER);
            cold.put(fingerprint, rec, 0);
            model.put(fingerprint, rec);
            assertThat(cold.size()).isLessThanOrEqualTo(1_000);
        }

        int found = 0;
        for (long fingerprint = 1; fingerprint <= 3_000; fingerprint++) {
            long[] rec = cold.get(fingerprint, 0);
            if (rec != null) {
                assertThat(rec).isEqualTo(model.get(fingerprint));
                found++;
            }
        }
        assertThat(found).isEqualTo(1_000);
    }

    /**
     * The clock hand once moved slot by slot: the slots behind it emptied while new records landed
     * everywhere, so the slots ahead of it filled into one run that grew each turn (thousands of
     * slots with four million keys against a bound of a million), walked by every eviction and by
     * every lookup landing in it. Ten turns of fresh keys past the bound leave runs as short as a
     * table this full has anyway.
     */
    @Test
    void manyTurnsPastTheBound_leaveNoLongRunOfSlots() {
        ColdStates cold = new ColdStates(40_000); // 65,536 slots, 61 % full at the bound
        SplittableRandom random = new SplittableRandom(13);
        long[] rec = record(1, LATER);
        for (int i = 0; i < 400_000; i++) {
            cold.put(random.nextLong() | 1, rec, 0);
        }

        assertThat(cold.size()).isEqualTo(40_000);
        assertThat(cold.longestRun()).isLessThan(150);
    }

    @Test
    void atTheBound_aRecordReadSinceTheHandPassed_outlivesOneNotRead() {
        ColdStates cold = new ColdStates(3);
        cold.put(1, record(1, LATER), 0);
        cold.put(2, record(2, LATER), 0);
        cold.put(3, record(3, LATER), 0);
        cold.get(1, 0);

        cold.put(4, record(4, LATER), 0);

        assertThat(cold.get(1, 0)).as("read: a second chance").isNotNull();
        assertThat(cold.get(2, 0)).as("the first the hand found unread").isNull();
        assertThat(cold.get(3, 0)).isNotNull();
        assertThat(cold.get(4, 0)).isNotNull();
    }

    @Test
    void expiredRecord_isNotFound_andMakesRoomFirst() {
        ColdStates cold = new ColdStates(2);
        cold.put(1, record(1, 100), 0);
        cold.put(2, record(2, LATER), 0);
        cold.get(1, 0);
        cold.get(2, 0);

        cold.put(3, record(3, LATER), 200);

        assertThat(cold.get(1, 200)).as("expired at 100").isNull();
        assertThat(cold.get(2, 200)).isNotNull();
        assertThat(cold.get(3, 200)).isNotNull();
        assertThat(cold.size()).isEqualTo(2);
    }

    @Test
    void recordIsACopy_soChangingWhatWasPutOrGotChangesNothingKept() {
        ColdStates cold = new ColdStates(10);
        long[] rec = record(1, LATER);
        cold.put(7, rec, 0);
        rec[StateTemplates.CONFIRMED] = 99;
        cold.get(7, 0)[StateTemplates.CONFIRMED] = 98;

        assertThat(cold.get(7, 0)[StateTemplates.CONFIRMED]).isEqualTo(1);
    }

    @Test
    void recordLongerThanTheSlabsHold_isNotKept_andForgetsWhatTheKeyHeld() {
        ColdStates cold = new ColdStates(10);
        cold.put(7, record(1, LATER), 0);

        cold.put(7, new long[RecordSlabs.MAX_LENGTH + 1], 0);

        assertThat(cold.get(7, 0)).isNull();
        assertThat(cold.size()).isZero();
    }

    @Test
    void capacity_holdsTheBoundAtMostFourFifthsFull() {
        assertThat(ColdStates.capacityFor(400_000 - KeyStates.HOT_KEYS)).isEqualTo(1 << 19);
        assertThat(ColdStates.capacityFor(419_430)).isEqualTo(1 << 19);
        assertThat(ColdStates.capacityFor(419_431)).isEqualTo(1 << 20);
        assertThat(ColdStates.capacityFor(1)).isEqualTo(64);
    }

    /** A record of {@code HEADER + confirmed % 5} words, every word telling it apart. */
    private static long[] record(long confirmed, long expires) {
        long[] rec = new long[StateTemplates.HEADER + (int) (confirmed % 5)];
        for (int i = 0; i < rec.length; i++) {
            rec[i] = confirmed * 31 + i;
        }
        rec[StateTemplates.CONFIRMED] = confirmed;
        rec[StateTemplates.EXPIRES] = expires;
        return rec;
    }
}
