package dev.locksmith.testkit;

/**
 * Every capability contract: what a provider with waiting, renewal, fencing tokens, several locks
 * in one call, a store that can be restarted, a faultable path, and releases sent without waiting
 * (or answered at once), and renewals in batches passes.
 */
public interface FullContract
    extends BasicLeaseContract,
        WaitingContract,
        RenewalContract,
        FencingContract,
        FaultContract,
        ShortTtlContract,
        StoreLifecycleContract,
        SeveralLocksContract,
        AsyncReleaseContract,
        RenewAllContract {}
