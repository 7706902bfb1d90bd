// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

interface IERC20 {
    function transfer(address to, uint256 amount) external returns (bool);
}

/// @title PaymentForwarder
/// @notice A minimal smart-contract wallet: it holds tokens and pays them out when its owner asks. A payment made
/// through it is one transaction sent by the owner whose Transfer log's `from` is this contract, which is how
/// payments from Safe-style wallets look on chain.
contract PaymentForwarder {
    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    function pay(address token, address to, uint256 amount) external {
        require(msg.sender == owner, "PaymentForwarder: not the owner");
        require(IERC20(token).transfer(to, amount), "PaymentForwarder: transfer failed");
    }
}
