package dev.locksmith.core;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockIdText;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.RenewalRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews the leases due on each provider together, through {@link LockProvider#renewAll} in chunks
 * of at most {@link LockProvider#MAX_RENEWALS_PER_CALL}: one lane per provider, with at most one
 * batch in flight, so that a slow provider delays only its own leases and leases that fall due
 * meanwhile join its next batch. A lease due within a small window of a batch being sent joins it
 * early. The sweeper fills the lanes ({@link #due}, {@link #early}) and starts them ({@link
 * #dispatch}); the batches run on the given executor.
 */
final class RenewalLanes {
  private static final Logger LOG = LoggerFactory.getLogger(RenewalLanes.class);

  /**
   * How long an application's executor may hold a batch it took without running it before the lane
   * offers it again: an executor that drops tasks (a discard policy) would otherwise leave the lane
   * waiting for good, and every lease of the provider unrenewed. The batch first offered stays
   * offered; whichever of the two runs first runs it.
   */
  static final long UNRUN_HANDOVER_NANOS = 1_000_000_000L;

  private final Executor executor;
  private final @Nullable ThreadPoolExecutor ownPool;
  private final ConcurrentHashMap<ProviderCircuit, Lane> lanes = new ConcurrentHashMap<>();
  private final Ticker ticker;
  // Set when the engine closes: a batch the application's executor runs afterwards calls nothing.
  private volatile boolean stopped;

  /**
   * @param executor runs the batches
   * @param ownPool the engine's own pool when {@code executor} is it: it keeps one thread per
   *     provider with leases to renew, since a provider has at most one batch in flight, so a
   *     provider that hangs holds one thread and delays no other provider's batches
   * @param ticker the engine's time source
   */
  RenewalLanes(Executor executor, @Nullable ThreadPoolExecutor ownPool, Ticker ticker) {
    this.executor = executor;
    this.ownPool = ownPool;
    this.ticker = ticker;
  }

  /** A lease whose renewal is due and started: it goes with its provider's next batch. */
  void due(ActiveLease lease) {
    lane(lease).queued.add(lease);
  }

  /** A lease due soon: it joins its provider's batch if one goes out in this sweep. */
  void early(ActiveLease lease) {
    lane(lease).early.add(lease);
  }

  private Lane lane(ActiveLease lease) {
    Lane lane = lanes.get(lease.circuit());
    if (lane == null) {
      lane = lanes.computeIfAbsent(lease.circuit(), Lane::new);
      if (ownPool != null) {
        growPool(ownPool, lanes.size());
      }
    }
    return lane;
  }

  /** Raises the engine's own pool to one thread per lane; lanes are made on several threads. */
  private static void growPool(ThreadPoolExecutor pool, int lanes) {
    synchronized (pool) {
      if (lanes > pool.getMaximumPoolSize()) {
        pool.setMaximumPoolSize(lanes); // first: the core size may not exceed it
        pool.setCorePoolSize(lanes);
      }
    }
  }

  /**
   * Sends each lane's queued leases, with the early ones, unless its batch is in flight. Called on
   * the sweeper thread after every sweep or deadline check.
   */
  void dispatch(long now) {
    for (Lane lane : lanes.values()) {
      lane.dispatch(now);
    }
  }

  /**
   * The engine is closing: batches that start from now on (an application's executor may still run
   * one it was given) end at once, calling no provider.
   */
  void stop() {
    stopped = true;
  }

  /**
   * One offer of a lane's batch to the executor. Offered again (see {@link #UNRUN_HANDOVER_NANOS}),
   * the copies share one claim: the first to run runs the batch, the others do nothing.
   */
  private static final class Handover implements Runnable {
    private final Lane lane;
    private final long handedAt;
    private final AtomicBoolean claimed;

    Handover(Lane lane, long handedAt, AtomicBoolean claimed) {
      this.lane = lane;
      this.handedAt = handedAt;
      this.claimed = claimed;
    }

    @Override
    public void run() {
      if (claimed.compareAndSet(false, true)) {
        lane.run();
      }
    }

    boolean started() {
      return claimed.get();
    }

    /** A copy of this offer, made at {@code now}, sharing its claim. */
    Handover again(long now) {
      return new Handover(lane, now, claimed);
    }
  }

  /** The leases of one provider waiting for their batch. */
  private final class Lane {
    private final ProviderCircuit circuit;
    private final ConcurrentLinkedQueue<ActiveLease> queued = new ConcurrentLinkedQueue<>();
    // Only the sweeper thread touches it.
    private final List<ActiveLease> early = new ArrayList<>();
    private final AtomicBoolean inFlight = new AtomicBoolean();
    // The hand-over in flight, if any, when the executor is the application's.
    private volatile @Nullable Handover handed;
    // Whether the executor's last refusal was logged: logged once until it takes a batch again.
    private volatile boolean refusalLogged;
    // Whether a batch the executor took and did not run was logged: once until it runs one.
    private volatile boolean unrunLogged;

    Lane(ProviderCircuit circuit) {
      this.circuit = circuit;
    }

    void dispatch(long now) {
      if (!early.isEmpty()) {
        if (!queued.isEmpty()) {
          for (ActiveLease lease : early) {
            if (lease.startRenewalEarly(now)) {
              queued.add(lease);
            }
          }
        }
        early.clear();
      }
      offerAgainIfUnrun(now);
      start();
    }

    /**
     * Offers the batch again when the application's executor took it and has not run it for a
     * while; the first offer stays, and whichever copy runs first runs the batch.
     */
    private void offerAgainIfUnrun(long now) {
      Handover h = handed;
      if (h == null || h.started() || now - h.handedAt <= UNRUN_HANDOVER_NANOS) {
        return;
      }
      Handover again = h.again(now);
      handed = again;
      if (!unrunLogged) {
        unrunLogged = true;
        LOG.error(
            "The renewal executor took the renewals of {} but has not run them for {} ms (does it"
                + " discard tasks, or is its queue that long?); they are offered again every"
                + " second until one offer runs, and leases not renewed by their deadline are lost"
                + " (logged once until it runs them)",
            circuit.description(),
            (now - h.handedAt) / 1_000_000);
      }
      try {
        executor.execute(again);
      } catch (RuntimeException e) {
        LOG.debug(
            "The renewal executor refused the renewals of {} offered again",
            circuit.description(),
            e);
      }
    }

    private void start() {
      if (!stopped && !queued.isEmpty() && inFlight.compareAndSet(false, true)) {
        try {
          Runnable task = this::run;
          if (ownPool == null) {
            Handover h = new Handover(this, ticker.read(), new AtomicBoolean());
            handed = h;
            task = h;
          }
          executor.execute(task);
          refusalLogged = false;
        } catch (RuntimeException e) {
          handed = null;
          inFlight.set(false);
          if (ownPool != null && e instanceof RejectedExecutionException) {
            return; // the engine's own pool refuses only once it is closing
          }
          // An application's executor that refused (saturated, or shut down before the engine):
          // tried again at every tick, logged once until it takes a batch again.
          if (!refusalLogged) {
            refusalLogged = true;
            LOG.error(
                "The renewal executor did not take the renewals of {}; they are offered again at"
                    + " every tick, and leases not renewed by their deadline are lost (logged once"
                    + " until it takes them)",
                circuit.description(),
                e);
          }
        }
      }
    }

    void run() {
      unrunLogged = false;
      try {
        if (stopped) {
          return;
        }
        List<ActiveLease> batch = new ArrayList<>();
        for (ActiveLease lease = queued.poll(); lease != null; lease = queued.poll()) {
          batch.add(lease);
          if (batch.size() == LockProvider.MAX_RENEWALS_PER_CALL) {
            renew(batch);
            batch.clear();
          }
        }
        if (!batch.isEmpty()) {
          renew(batch);
        }
      } finally {
        inFlight.set(false);
      }
      start(); // leases queued after the last poll
    }

    /** Renews up to one chunk of leases in one provider call. */
    private void renew(List<ActiveLease> leases) {
      List<ActiveLease> locked = new ArrayList<>(leases.size());
      List<RenewalRequest> requests = new ArrayList<>(leases.size());
      for (ActiveLease lease : leases) {
        RenewalRequest request;
        try {
          request = lease.beginRenewal();
        } catch (RuntimeException | Error e) {
          // A listener told of this lease's loss failed (Listeners pass Errors on): the loss
          // stands, and the leases taken before it must not stay locked for provider calls.
          LOG.error("Reporting the loss of lock {} failed", LockIdText.quoted(lease.lockId()), e);
          continue;
        }
        if (request != null) {
          locked.add(lease);
          requests.add(request);
        }
      }
      if (locked.isEmpty()) {
        return;
      }
      if (!circuit.isUp() || locked.size() == 1) {
        // One by one: each fails fast with its own lock's message while the provider is down.
        renewEachAlone(locked, requests);
        return;
      }
      List<Optional<LeaseGrant>> answers;
      try {
        answers =
            circuit.call(
                () -> answered(requests, circuit.provider().renewAll(requests)),
                locked.get(0).lockId(),
                ProviderCircuit.RENEWED);
      } catch (RuntimeException e) {
        if (ProviderCircuit.opensCircuit(e)) {
          endEach(locked, requests, null, e);
        } else {
          // A fault of one lease (its record, its request), not of the provider: renewed alone,
          // each lease gets its own answer, and only the faulty one fails.
          renewEachAlone(locked, requests);
        }
        return;
      } catch (Error e) {
        // Not rethrown: it would leave every lease of the batch locked for provider calls, never
        // renewed again and its release hanging; each is ended as by any failed renewal.
        LOG.error("Renewing {} leases on {} failed", locked.size(), circuit.description(), e);
        endEach(locked, requests, null, new LockProviderException("renewAll failed: " + e, e));
        return;
      }
      endEach(locked, requests, answers, null);
    }

    /** Renews each lease of a batch in its own provider call, and ends its renewal. */
    private void renewEachAlone(List<ActiveLease> locked, List<RenewalRequest> requests) {
      for (int i = 0; i < locked.size(); i++) {
        try {
          locked.get(i).renewAlone(requests.get(i));
        } catch (RuntimeException | Error e) {
          // Its lease's renewal is ended (renewAlone's finally); the others still need theirs.
          LOG.error("Renewing lock {} failed", LockIdText.quoted(locked.get(i).lockId()), e);
        }
      }
    }

    /**
     * Ends the renewal of every lease of a batch with its answer, or with the batch's failure. One
     * lease's failure (a listener's {@link Error} as its loss is told, say) is logged and does not
     * keep the others' provider-call locks, which would hang their releases and stop their
     * renewals.
     */
    private void endEach(
        List<ActiveLease> locked,
        List<RenewalRequest> requests,
        @Nullable List<Optional<LeaseGrant>> answers,
        @Nullable RuntimeException failure) {
      for (int i = 0; i < locked.size(); i++) {
        try {
          locked
              .get(i)
              .endRenewal(requests.get(i), answers == null ? null : answers.get(i), failure);
        } catch (RuntimeException | Error e) {
          LOG.error("Renewing lock {} failed", LockIdText.quoted(locked.get(i).lockId()), e);
        }
      }
    }
  }

  /** The provider's answers, checked to be one per request. */
  private static List<Optional<LeaseGrant>> answered(
      List<RenewalRequest> requests, List<Optional<LeaseGrant>> answers) {
    if (answers.size() != requests.size()) {
      throw new LockProviderException(
          "renewAll answered "
              + answers.size()
              + " times for "
              + requests.size()
              + " leases; a provider answers once per lease");
    }
    return answers;
  }
}
