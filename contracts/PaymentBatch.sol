// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

interface IERC20Batch {
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// @title PaymentBatch
/// @notice A minimal batch/multicall contract: in one transaction it pays from its own balance and then
/// collects the caller's approved tokens for the same recipient, so one transaction holds Transfer logs from
/// two senders (the contract's first), as a router or a multicall's payments do.
contract PaymentBatch {
    function payAndCollect(address token, address to, uint256 ownAmount, uint256 callerAmount) external {
        require(IERC20Batch(token).transfer(to, ownAmount), "PaymentBatch: transfer failed");
        require(IERC20Batch(token).transferFrom(msg.sender, to, callerAmount), "PaymentBatch: transferFrom failed");
    }
}
