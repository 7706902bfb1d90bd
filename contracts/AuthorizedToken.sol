// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title AuthorizedToken
/// @notice A plain ERC-20 with EIP-3009 transferWithAuthorization, as USDC implements it, for local x402 tests:
/// the payer signs an EIP-712 authorization and anyone (the server's settler) submits it. Both overloads the
/// official x402 clients use: (v, r, s) for a 65-byte signature and `bytes signature` otherwise. The EIP-712
/// domain (name, version, chain id, this contract) is readable through `name()`, `version()` and
/// `eip712Domain()` (EIP-5267), as the server reads it to make its offer.
contract AuthorizedToken {
    string public name;
    string public symbol;
    string public version;
    uint8 public immutable decimals;
    uint256 public totalSupply;
    address public immutable owner;

    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    mapping(address => mapping(bytes32 => bool)) public authorizationState;

    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH =
        keccak256(
            "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
        );
    bytes32 public constant CANCEL_AUTHORIZATION_TYPEHASH =
        keccak256("CancelAuthorization(address authorizer,bytes32 nonce)");
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);

    constructor(string memory name_, string memory symbol_, string memory version_, uint8 decimals_) {
        name = name_;
        symbol = symbol_;
        version = version_;
        decimals = decimals_;
        owner = msg.sender;
    }

    /// @notice Computed on each call (not cached at deployment), so it is right on any chain id.
    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return
            keccak256(
                abi.encode(DOMAIN_TYPEHASH, keccak256(bytes(name)), keccak256(bytes(version)), block.chainid, address(this))
            );
    }

    /// @notice EIP-5267: what a verifier needs to rebuild the domain.
    function eip712Domain()
        external
        view
        returns (bytes1, string memory, string memory, uint256, address, bytes32, uint256[] memory)
    {
        return (hex"0f", name, version, block.chainid, address(this), bytes32(0), new uint256[](0));
    }

    function mint(address to, uint256 amount) external {
        require(msg.sender == owner, "AuthorizedToken: not the owner");
        totalSupply += amount;
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _transfer(msg.sender, to, amount);
        return true;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    /// @notice As USDC's: a 0-value transferFrom needs no allowance and still emits Transfer(from, to, 0).
    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        require(allowed >= amount, "AuthorizedToken: insufficient allowance");
        allowance[from][msg.sender] = allowed - amount;
        _transfer(from, to, amount);
        return true;
    }

    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        _checkAuthorization(from, validAfter, validBefore, nonce);
        bytes32 digest = _digest(from, to, value, validAfter, validBefore, nonce);
        _useAuthorization(from, nonce, ecrecover(digest, v, r, s));
        _transfer(from, to, value);
    }

    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external {
        _checkAuthorization(from, validAfter, validBefore, nonce);
        bytes32 digest = _digest(from, to, value, validAfter, validBefore, nonce);
        _useAuthorization(from, nonce, _recover(digest, signature));
        _transfer(from, to, value);
    }

    /// @notice EIP-3009's cancelAuthorization: the authorizer marks an unused nonce used, with no transfer.
    function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) external {
        require(!authorizationState[authorizer][nonce], "AuthorizedToken: authorization is used");
        bytes32 digest = keccak256(
            abi.encodePacked(
                "\x19\x01",
                DOMAIN_SEPARATOR(),
                keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce))
            )
        );
        address signer = ecrecover(digest, v, r, s);
        require(signer != address(0) && signer == authorizer, "AuthorizedToken: invalid signature");
        authorizationState[authorizer][nonce] = true;
        emit AuthorizationCanceled(authorizer, nonce);
    }

    // 65 bytes (r, s, v), or 64 (ERC-2098's compact r, yParityAndS): a signature a server cannot check as an
    // EOA's 65 bytes is left to the token, as a contract wallet's is.
    function _recover(bytes32 digest, bytes memory signature) private pure returns (address) {
        require(signature.length == 65 || signature.length == 64, "AuthorizedToken: invalid signature length");
        bytes32 r;
        bytes32 s;
        uint8 v;
        if (signature.length == 65) {
            assembly {
                r := mload(add(signature, 0x20))
                s := mload(add(signature, 0x40))
                v := byte(0, mload(add(signature, 0x60)))
            }
        } else {
            bytes32 vs;
            assembly {
                r := mload(add(signature, 0x20))
                vs := mload(add(signature, 0x40))
            }
            s = vs & bytes32(0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff);
            v = uint8(uint256(vs) >> 255) + 27;
        }
        return ecrecover(digest, v, r, s);
    }

    function _digest(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce
    ) private view returns (bytes32) {
        bytes32 structHash = keccak256(
            abi.encode(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce)
        );
        return keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
    }

    function _checkAuthorization(address from, uint256 validAfter, uint256 validBefore, bytes32 nonce) private view {
        require(block.timestamp > validAfter, "AuthorizedToken: authorization is not yet valid");
        require(block.timestamp < validBefore, "AuthorizedToken: authorization is expired");
        require(!authorizationState[from][nonce], "AuthorizedToken: authorization is used");
    }

    function _useAuthorization(address from, bytes32 nonce, address signer) private {
        require(signer != address(0) && signer == from, "AuthorizedToken: invalid signature");
        authorizationState[from][nonce] = true;
        emit AuthorizationUsed(from, nonce);
    }

    function _transfer(address from, address to, uint256 amount) private {
        require(to != address(0), "AuthorizedToken: transfer to the zero address");
        uint256 balance = balanceOf[from];
        require(balance >= amount, "AuthorizedToken: transfer amount exceeds balance");
        balanceOf[from] = balance - amount;
        balanceOf[to] += amount;
        emit Transfer(from, to, amount);
    }
}
